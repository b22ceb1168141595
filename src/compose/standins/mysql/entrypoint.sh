#!/bin/bash
# The official mysql image's entrypoint, reduced to what this lab uses: a first start creates the
# root password, one database and one user from MYSQL_*, then the server runs in the foreground.
set -euo pipefail

args=(--user=mysql --datadir=/var/lib/mysql --bind-address=0.0.0.0 --skip-name-resolve)
for a in "$@"; do
  case "$a" in
    # MySQL's SELECT timeout in ms; MariaDB's statement timeout is in seconds
    --max-execution-time=*) ms=${a#*=}; args+=("--max-statement-time=$(( (ms + 999) / 1000 ))") ;;
    *) args+=("$a") ;;
  esac
done

if [ ! -d /var/lib/mysql/mysql ]; then
  mariadb-install-db --user=mysql --datadir=/var/lib/mysql --skip-test-db --auth-root-authentication-method=normal >/dev/null
  # Set up over the socket only, as the official image does: the health check cannot pass meanwhile.
  mariadbd --user=mysql --datadir=/var/lib/mysql --skip-networking --socket=/run/mysqld/init.sock &
  pid=$!
  for _ in $(seq 60); do mariadb-admin --socket=/run/mysqld/init.sock ping >/dev/null 2>&1 && break; sleep 0.5; done
  {
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '${MYSQL_ROOT_PASSWORD}';"
    echo "CREATE USER 'root'@'%' IDENTIFIED BY '${MYSQL_ROOT_PASSWORD}'; GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
    if [ -n "${MYSQL_DATABASE:-}" ]; then echo "CREATE DATABASE IF NOT EXISTS \`${MYSQL_DATABASE}\`;"; fi
    if [ -n "${MYSQL_USER:-}" ]; then
      echo "CREATE USER '${MYSQL_USER}'@'%' IDENTIFIED BY '${MYSQL_PASSWORD}';"
      if [ -n "${MYSQL_DATABASE:-}" ]; then echo "GRANT ALL ON \`${MYSQL_DATABASE}\`.* TO '${MYSQL_USER}'@'%';"; fi
    fi
    echo "FLUSH PRIVILEGES;"
  } | mariadb --socket=/run/mysqld/init.sock -uroot
  kill "$pid"; wait "$pid" || true
fi
exec mariadbd "${args[@]}"
