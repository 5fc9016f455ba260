# For each PTX entry that issues wgmma: how many fence.proxy.async lines
# come before its first wgmma.wait_group and how many after it (text order).
/^\.visible \.entry/ { name = $3; sub(/\(.*/, "", name); seen = 0 }
/wgmma\.wait_group/ { seen = 1; wg[name] = 1 }
/fence\.proxy\.async/ { if (seen) after[name]++; else before[name]++ }
END { for (n in wg) print n ": " before[n] + 0 " before, " after[n] + 0 " after" }
