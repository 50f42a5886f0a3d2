#!/usr/bin/env bash
# Makes, once, a Python environment with PyFlink at the build's Flink version (pom.xml's
# flink.version), and prints its directory. Later runs find it complete and return at once.
#
#   sql/pyflink-env.sh          ->  ~/.cache/kes/pyflink-2.2.1
#   <dir>/bin/python            the interpreter with pyflink (for sql/examples/pyflink_kafka_to_kes.py)
#   <dir>/flink                 the Flink distribution inside the apache-flink package: bin/ (sql-client.sh,
#                               jobmanager.sh, taskmanager.sh), conf/, lib/, opt/ (the SQL client)
#
# Outside target/ on purpose: a clean build must not cost a reinstall (about 1 GB of wheels).
# KES_PYFLINK_ENV chooses another directory, KES_PYTHON another interpreter than python3.
# Everything but the directory goes to stderr, so `dir=$(sql/pyflink-env.sh)` works.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FLINK_VERSION="$(sed -n 's:.*<flink.version>\(.*\)</flink.version>.*:\1:p' "$ROOT/pom.xml" | head -1)"
if [ -z "$FLINK_VERSION" ]; then
  echo "pyflink-env: no <flink.version> in $ROOT/pom.xml" >&2
  exit 1
fi
ENV_DIR="${KES_PYFLINK_ENV:-${XDG_CACHE_HOME:-$HOME/.cache}/kes/pyflink-$FLINK_VERSION}"
PYTHON="${KES_PYTHON:-python3}"
# Written last: a directory without it is a broken or interrupted install, made again.
COMPLETE="$ENV_DIR/.kes-complete"

if [ -f "$COMPLETE" ]; then
  echo "$ENV_DIR"
  exit 0
fi

mkdir -p "$(dirname "$ENV_DIR")"
# Two builds at once (two test JVMs, a user and a test) install once: the second waits here.
exec 9>"$ENV_DIR.lock"
flock 9
if [ -f "$COMPLETE" ]; then
  echo "$ENV_DIR"
  exit 0
fi

if ! command -v "$PYTHON" >/dev/null; then
  echo "pyflink-env: no '$PYTHON' on PATH: install Python 3.9-3.12 (apache-flink $FLINK_VERSION has wheels for those), or point KES_PYTHON at one" >&2
  exit 1
fi
echo "pyflink-env: making $ENV_DIR with $("$PYTHON" --version 2>&1) and apache-flink==$FLINK_VERSION (once; about 1 GB)" >&2
rm -rf "$ENV_DIR"
if ! "$PYTHON" -m venv "$ENV_DIR" >&2; then
  echo "pyflink-env: '$PYTHON -m venv' failed: on Debian or Ubuntu install the venv module (apt-get install python3-venv)" >&2
  exit 1
fi
# --only-binary for the packages with native code: a Python they have no wheels for must fail here,
# in seconds, with pip's reason, rather than compile Beam or pyarrow from source for an hour. (Some
# small pure-Python dependencies exist only as source archives, so not :all:.)
if ! "$ENV_DIR/bin/python" -m pip install --disable-pip-version-check --no-input --progress-bar off -q \
    --only-binary=apache-flink,apache-beam,pyarrow,pandas,numpy,pemja,grpcio \
    "apache-flink==$FLINK_VERSION" >&2; then
  echo "pyflink-env: pip could not install apache-flink==$FLINK_VERSION from the package index into $ENV_DIR" \
       "(no network to the index, or no wheels for $("$PYTHON" --version 2>&1): apache-flink $FLINK_VERSION ships them for Python 3.9-3.12; set KES_PYTHON to such an interpreter)" >&2
  exit 1
fi
FLINK_HOME="$("$ENV_DIR/bin/python" -c 'import os, pyflink; print(os.path.dirname(os.path.abspath(pyflink.__file__)))')"
for required in bin/sql-client.sh bin/jobmanager.sh bin/taskmanager.sh opt/flink-sql-client-"$FLINK_VERSION".jar lib/flink-dist-"$FLINK_VERSION".jar; do
  if [ ! -e "$FLINK_HOME/$required" ]; then
    echo "pyflink-env: apache-flink==$FLINK_VERSION installed, but its distribution has no $required (in $FLINK_HOME)" >&2
    exit 1
  fi
done
ln -sfn "$FLINK_HOME" "$ENV_DIR/flink"
touch "$COMPLETE"
echo "pyflink-env: ready in $ENV_DIR" >&2
echo "$ENV_DIR"
