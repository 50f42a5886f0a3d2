# innermost-owner classification of async-profiler collapsed stacks (root;...;leaf count)
{
  n=$NF; $NF=""; line=$0; k=split(line,a,";");
  own="";
  if (line ~ /GC Thread|G1 Conc|G1 Refine|G1 Service/) own="GC threads";
  else if (line ~ /CompilerThre/) own="JIT compiler threads";
  else {
    for(i=k;i>=1 && own=="";i--) {
      f=a[i];
      if (f ~ /^(org\/apache\/http|org\/elasticsearch\/client|jdk\/internal\/net\/http|java\/net\/http)/) own="HTTP client";
      else if (f ~ /^org\/apache\/kafka/) own="Kafka client";
      else if (f ~ /^io\/kes\/bench\//) own="loader's own code";
      else if (f ~ /^io\/kes\//) own="kes";
      else if (f ~ /^(org\/apache\/flink|org\/apache\/pekko|io\/netty|org\/apache\/flink\/shaded)/) own="Flink runtime (Pekko, Netty, its Kafka source reader)";
    }
    if (own=="") own="JVM and JDK, other";
  }
  c[own]+=n; tot+=n
}
END { for (o in c) printf "%s\t%d\t%.1f%%\n", o, c[o], 100*c[o]/tot; printf "total\t%d\n", tot }
