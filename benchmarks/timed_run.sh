# Sourced by the shell benchmarks (decoder_7b.sh, read_rss.sh); needs $work.
# run LABEL CMD...: the command in a fresh process under /usr/bin/time -v,
# one line with its wall time and peak RSS; its output and timing go to
# $work, and a failure prints both and exits.
run() {
    label=$1
    shift
    /usr/bin/time -v -o "$work/time.txt" "$@" > "$work/out.txt" 2>&1 || {
        echo "$label failed:" >&2
        cat "$work/out.txt" "$work/time.txt" >&2
        exit 1
    }
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
    printf "  %-48s %10s wall  %8.1f MiB peak RSS\n" "$label" "$wall" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
}
