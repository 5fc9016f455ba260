# For each .entry of the PTX files: does griddepcontrol.wait run before the
# entry's first memory access (kernel parameters aside)? Prints "BAD ..."
# per entry that has no wait or accesses memory before it, then a summary.
# An entry that lets its successor launch before it waits
# (griddepcontrol.launch_dependents first: tile.grid_dependency =
# "deferred") may read global memory before its first wait (in text
# order), but not write it (a store other than st.shared/local/param, an
# atomic, a bulk copy or reduction) or load by TMA: it is counted as
# deferred.
# With -v deferred=REGEX, exactly the entries whose name matches REGEX
# must be deferred.
/\.entry / {
  name = $0; sub(/.*\.entry[ \t]+/, "", name); sub(/\(.*/, "", name)
  inentry = 1; waited = 0; defers = 0; bad = ""; badw = ""; n++
}
inentry && !waited && /griddepcontrol\.launch_dependents/ { defers = 1 }
inentry && /griddepcontrol\.wait/ { waited = 1 }
inentry && !waited && !/ld\.param/ &&
    /^[ \t]*(@!?%p[0-9]+[ \t]+)?(ld|st|cp|atom|red|mbarrier|ldmatrix|stmatrix|wgmma|prefetch|tex|suld|sust|bar|fence)\./ {
  if (bad == "") bad = $0
}
inentry && !waited &&
    /^[ \t]*(@!?%p[0-9]+[ \t]+)?(st|cp\.async\.bulk|cp\.reduce\.async\.bulk|atom|red|sust)\./ &&
    !/^[ \t]*(@!?%p[0-9]+[ \t]+)?st\.(shared|local|param)/ {
  if (badw == "") badw = $0
}
inentry && /^}/ {
  if (deferred != "" && (name ~ deferred) != defers)
    print "BAD " (defers ? "deferred, not expected: " : "not deferred: ") name
  if (!waited) print "BAD no wait: " name
  else if (defers && badw != "")
    print "BAD global write or TMA load before the deferred wait: " name ": " badw
  else if (defers) nd++
  else if (bad != "") print "BAD memory access before the wait: " name ": " bad
  else ok++
  inentry = 0
}
END {
  print n + 0 " entries, " ok + 0 " wait before their first memory access, " \
        nd + 0 " deferred"
}
