# For each .entry of the PTX files: does griddepcontrol.wait run before the
# entry's first memory access (kernel parameters aside)? Prints "BAD ..."
# per entry that has no wait or accesses memory before it, then a summary.
/\.entry / {
  name = $0; sub(/.*\.entry[ \t]+/, "", name); sub(/\(.*/, "", name)
  inentry = 1; waited = 0; bad = ""; n++
}
inentry && /griddepcontrol\.wait/ { waited = 1 }
inentry && !waited && !/ld\.param/ &&
    /^[ \t]*(@!?%p[0-9]+[ \t]+)?(ld|st|cp|atom|red|mbarrier|ldmatrix|stmatrix|wgmma|prefetch|tex|suld|sust|bar|fence)\./ {
  if (bad == "") bad = $0
}
inentry && /^}/ {
  if (!waited) print "BAD no wait: " name
  else if (bad != "") print "BAD memory access before the wait: " name ": " bad
  else ok++
  inentry = 0
}
END { print n + 0 " entries, " ok + 0 " wait before their first memory access" }
