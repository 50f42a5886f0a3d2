set -x
run() { # dir label
  (cd $1 && flock /tmp/kes-heavy.lock bin/kes bench --scenario users-path --records 1000000 --rounds 1 --shards 48 --modes kes-keyed --out /work/notes/ab15-$2 > /work/notes/ab15-$2.log 2>&1)
  grep "kes-keyed |" /work/notes/ab15-$2/users-path.md | awk -F'|' -v l=$2 '{print l, "docs/s", $4, "steady", $7, "bulk", $11, "heap", $15, "cpu whole", $19, "steady", $21, "startup", $10, "es", $18}' >> /work/notes/ab15.out
}
run /work/wt-base B4; run /work/main N4; run /work/wt-base B5; run /work/main N5
echo alldone2 >> /work/notes/ab15.out
