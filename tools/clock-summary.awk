#===- clock-summary.awk - the SM clock over one timed run ------------------===#
#
# usage: awk -f tools/clock-summary.awk CSV
#
# CSV: nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active
# --format=csv,noheader,nounits samples ("1980, 0x0000000000000000" per line)
# taken while one benchmark ran. Prints " | clk MEAN/MIN MHz, limited N of M"
# over the busy samples (SM clock above 1000 MHz; idle samples between the
# launches are left out): the mean and lowest SM clock, and how many of them
# had a clock-limiting reason active other than "idle" (0x1), e.g. the
# software power cap (0x4) or a hardware slowdown (0x8). Prints nothing
# when no sample was busy. tools/gpu-check.sh adds it to every row of its
# benchmark table, so that a slow median shows whether the GPU was held
# below its boost clock during that run.
#===----------------------------------------------------------------------===#
BEGIN { FS = ", *" }
$1 + 0 > 1000 {
  n++
  sum += $1
  if (n == 1 || $1 + 0 < min)
    min = $1 + 0
  if ($2 !~ /^0x0+$/ && $2 !~ /^0x0*1$/)
    limited++
}
END {
  if (n)
    printf " | clk %d/%d MHz, limited %d of %d", sum / n, min, limited, n
}
