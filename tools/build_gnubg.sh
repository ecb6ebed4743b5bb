#!/usr/bin/env bash
# make gnubg: GNU Backgammon 1.08.003 (the seed's opponent, networks v1.01, gnubg.wd md5
# 14184acc9c60ef67be0fad88548fd51a) built from Debian 13's source package into a project-local
# prefix (.gnubg/1.08.003, ignored by git), with its weights and bear-off databases.
#
#   1. done already (the stamp, the binary's version and the weights' md5 agree)? say so, stop
#   2. fetch gnubg_1.08.003.orig.tar.gz with apt-get source through a private sources list
#      (deb-src trixie; the system's sources and lists are untouched) and check its sha256
#      against the signed Sources index and against the value pinned here
#   3. install missing build dependencies (apt-get, as root)
#   4. configure (no GUI, with Python for gnubg_eval's analysis), make, make install, check
#
# Every failure is one line `make gnubg: error: ...` (details in .gnubg/logs/) and exit 2.
# Overrides (for tests): GNUBG_PREFIX_ROOT (default .gnubg), GNUBG_DEBIAN_MIRROR,
# GNUBG_ORIG_SHA256, GNUBG_BUILD_DEPS.
set -uo pipefail
cd "$(dirname "$0")/.."

VERSION=1.08.003
WEIGHTS_MD5=14184acc9c60ef67be0fad88548fd51a
ORIG=gnubg_${VERSION}.orig.tar.gz
ORIG_SHA256=${GNUBG_ORIG_SHA256:-6f7d969b13cfff786fba90ff8cc5e5d564b97f4f0aa69afe4f3838f18c445979}
MIRROR=${GNUBG_DEBIAN_MIRROR:-http://deb.debian.org/debian}
BUILD_DEPS=${GNUBG_BUILD_DEPS:-build-essential pkg-config bison flex libglib2.0-dev libreadline-dev libgmp-dev libsqlite3-dev python3-dev}
ROOT=${GNUBG_PREFIX_ROOT:-.gnubg}
[[ $ROOT = /* ]] || ROOT=$(pwd)/$ROOT
PREFIX=$ROOT/$VERSION
LOGS=$ROOT/logs

fail() { echo "make gnubg: error: $*" >&2; exit 2; }

installed() {  # the stamp is written last; the binary and weights must still be what it says
  [ -f "$PREFIX/.installed" ] && [ -x "$PREFIX/bin/gnubg" ] \
    && "$PREFIX/bin/gnubg" --version 2>/dev/null | head -1 | grep -q "GNU Backgammon $VERSION" \
    && [ "$(md5sum < "$PREFIX/share/gnubg/gnubg.wd" 2>/dev/null | cut -d' ' -f1)" = "$WEIGHTS_MD5" ]
}

if installed; then
  echo "gnubg $VERSION: $PREFIX/bin/gnubg (already built; weights md5 $WEIGHTS_MD5)"
  exit 0
fi
mkdir -p "$LOGS" "$ROOT/apt/lists/partial" "$ROOT/download" || fail "cannot create $ROOT"

# ---- 2. source tarball, verified
command -v apt-get >/dev/null || fail "needs apt-get (Debian) to fetch gnubg's source package"
LIST=$ROOT/apt/sources.list
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" > "$LIST"
APT=(-o "Dir::Etc::sourcelist=$LIST" -o Dir::Etc::sourceparts=/dev/null -o "Dir::State::Lists=$ROOT/apt/lists"
     -o Debug::NoLocking=1)
sha() { sha256sum "$1" | cut -d' ' -f1; }
tarball=$ROOT/download/$ORIG
if ! [ -f "$tarball" ] || [ "$(sha "$tarball")" != "$ORIG_SHA256" ]; then
  rm -f "$tarball"
  echo "gnubg $VERSION: fetching Debian 13's source index ($MIRROR trixie)"
  apt-get "${APT[@]}" update > "$LOGS/apt-update.log" 2>&1 \
    && ! grep -qE '^(E:|W: Failed)' "$LOGS/apt-update.log" \
    || fail "cannot fetch Debian 13's signed source index from $MIRROR (network down?): $(grep -m1 -E '^(E|W|Err):' "$LOGS/apt-update.log")"
  apt-cache "${APT[@]}" showsrc gnubg > "$LOGS/showsrc.txt" 2>&1 || fail "Debian 13's source index has no gnubg"
  deb_version=$(awk '/^Version: /{print $2}' "$LOGS/showsrc.txt" | grep -m1 "^$VERSION-") \
    || fail "Debian 13's source index has no gnubg $VERSION (it has: $(awk '/^Version: /{print $2}' "$LOGS/showsrc.txt" | tr '\n' ' '))"
  index_sha=$(awk -v f="$ORIG" '/^Checksums-Sha256:/{on=1; next} /^[^ ]/{on=0} on && $3==f {print $1; exit}' "$LOGS/showsrc.txt")
  [ -n "$index_sha" ] || fail "no sha256 for $ORIG in Debian 13's source index"
  [ "$index_sha" = "$ORIG_SHA256" ] \
    || fail "hash mismatch: Debian 13's index gives $ORIG sha256 $index_sha, this script pins $ORIG_SHA256"
  echo "gnubg $VERSION: downloading $ORIG (Debian gnubg $deb_version)"
  # apt-get fetches the tarball, then may fail on the .dsc / Debian patches (not served by
  # every mirror); only the upstream tarball is used, so its exit status is not the verdict
  (cd "$ROOT/download" && apt-get "${APT[@]}" source --download-only "gnubg=$deb_version") \
    > "$LOGS/apt-source.log" 2>&1
  rc=$?
  [ -f "$tarball" ] || fail "could not download $ORIG (apt-get source exit $rc: $(grep -m1 -E '^(E|Err):' "$LOGS/apt-source.log"))"
  got=$(sha "$tarball")
  if [ "$got" != "$ORIG_SHA256" ]; then
    mv -f "$tarball" "$tarball.bad"
    fail "hash mismatch: downloaded $ORIG has sha256 $got, expected $ORIG_SHA256 (kept as $tarball.bad)"
  fi
fi
echo "gnubg $VERSION: $ORIG sha256 $ORIG_SHA256 verified"

# ---- 3. build dependencies
missing=()
for p in $BUILD_DEPS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || fail "missing build dependencies: ${missing[*]} (run as root, or apt-get install them)"
  echo "gnubg $VERSION: installing build dependencies: ${missing[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } \
    > "$LOGS/apt-install.log" 2>&1 \
    || fail "cannot install build dependencies ${missing[*]}: $(grep -m1 -E '^(E|Err):' "$LOGS/apt-install.log")"
fi

# ---- 4. build and install (into a fresh prefix; the stamp goes last)
echo "gnubg $VERSION: building (configure + make, a few minutes on 2 cores)"
rm -rf "$ROOT/src" "$PREFIX"
mkdir -p "$ROOT/src"
tar -xzf "$tarball" -C "$ROOT/src" || fail "cannot unpack $tarball"
cd "$ROOT/src/gnubg-$VERSION" || fail "unexpected layout in $ORIG"
./configure --prefix="$PREFIX" --without-gtk --without-board3d --disable-cputest --with-python=/usr/bin/python3 \
  > "$LOGS/configure.log" 2>&1 || fail "configure failed: $(grep -m1 -iE 'error' "$LOGS/configure.log") (log: $LOGS/configure.log)"
make -j"$(nproc)" > "$LOGS/make.log" 2>&1 || fail "make failed (log: $LOGS/make.log): $(grep -m1 -E 'error' "$LOGS/make.log")"
make install > "$LOGS/install.log" 2>&1 || fail "make install failed (log: $LOGS/install.log)"
for f in gnubg.wd gnubg_os0.bd gnubg_ts0.bd; do
  [ -s "$PREFIX/share/gnubg/$f" ] || fail "the build installed no $PREFIX/share/gnubg/$f"
done
got=$(md5sum < "$PREFIX/share/gnubg/gnubg.wd" | cut -d' ' -f1)
[ "$got" = "$WEIGHTS_MD5" ] || fail "built weights gnubg.wd have md5 $got, expected $WEIGHTS_MD5"
"$PREFIX/bin/gnubg" --version 2>/dev/null | head -1 | grep -q "GNU Backgammon $VERSION" \
  || fail "the built binary does not report GNU Backgammon $VERSION"
printf 'version %s\nweights_md5 %s\norig_sha256 %s\n' "$VERSION" "$WEIGHTS_MD5" "$ORIG_SHA256" > "$PREFIX/.installed.tmp" \
  && mv "$PREFIX/.installed.tmp" "$PREFIX/.installed"
cd / && rm -rf "$ROOT/src"
echo "gnubg $VERSION: built $PREFIX/bin/gnubg (weights md5 $WEIGHTS_MD5)"
