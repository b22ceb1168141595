#!/bin/bash
# The two zkServer.sh commands the compose files use. `status` fails until the server serves (a
# member of an ensemble only once it has a quorum), as the official script's does.
case "${1:-}" in
  start-foreground)
    # the jar's manifest lists its dependencies; slf4j-simple logs to stderr
    exec java -Xms32m -Xmx256m -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true -Dzookeeper.jmx.log4j.disable=true \
      -cp /usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar org.apache.zookeeper.server.quorum.QuorumPeerMain /conf/zoo.cfg ;;
  status)
    exec 3<>/dev/tcp/127.0.0.1/2181 || exit 1
    printf srvr >&3
    mode=$(timeout 4 cat <&3 | sed -n 's/^Mode: //p')
    [ -n "$mode" ] && echo "Mode: $mode" ;;
  *) echo "usage: zkServer.sh start-foreground|status" >&2; exit 2 ;;
esac
