#!/usr/bin/env bash
# The ggml peer: a Debian trixie root with ggml's CPU back end as Debian users get it (libggml0 and
# libggml-dev 0.27.x from trixie-backports, with its dynamically loaded CPU variants) and g++, made once and
# cached at ${QMM_CACHE_DIR:-$HOME/.cache/qmatmul}/trixie-ggml. Nothing fetched is committed.
#   scripts/setup-ggml-peer.sh                  makes (or re-checks) the root; prints its path last
#   scripts/setup-ggml-peer.sh run DIR CMD...   runs CMD in the root, with /proc and the host directory DIR
#                                               bound at the same path inside (DIR may be "-" for none)
# Mounts are made in a private mount namespace (unshare), so they vanish with the command, on failure too.
# The Debian mirror is the one the machine's apt sources already use (read at run time, so no host name lives
# in the repo). Needs root (debootstrap, chroot, mount).
set -euo pipefail

CACHE="${QMM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/qmatmul}"
ROOT="$CACHE/trixie-ggml"
STAMP="$ROOT/.qmm-peer-ready"
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi

# Runs CMD... inside root $1 with /proc mounted and host dir $2 bound at the same path ("-": none).
in_root() {
  local root=$1 bind=$2
  shift 2
  if [ "$bind" != - ]; then bind=$(cd "$bind" && pwd); fi
  $SUDO unshare --mount --propagation private -- /bin/sh -euc '
    root=$1 bind=$2; shift 2
    mount -t proc proc "$root/proc"
    if [ "$bind" != - ]; then mkdir -p "$root$bind"; mount --bind "$bind" "$root$bind"; fi
    exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      DEBIAN_FRONTEND=noninteractive "$@"' sh "$root" "$bind" "$@"
}

if [ "${1:-}" = run ]; then
  [ $# -ge 3 ] || { echo "usage: $0 run DIR|- CMD..." >&2; exit 2; }
  [ -f "$STAMP" ] || { echo "setup-ggml-peer: no root at $ROOT yet; run $0 first" >&2; exit 1; }
  dir=$2
  shift 2
  in_root "$ROOT" "$dir" "$@"
  exit
fi

t0=$(date +%s)

# The Debian mirror URI: first "URIs:" of a deb822 file whose Suites are not -security, else sources.list.
mirror_uri() {
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk '
      /^[[:space:]]*$/ { if (u != "" && s !~ /security/) { print u; exit } u = ""; s = "" }
      /^URIs:/ { u = $2 } /^Suites:/ { s = $0 }
      END { if (u != "" && s !~ /security/) print u }' "$f" | head -n1)
    if [ -n "$uri" ]; then echo "$uri"; return; fi
  done
  if [ -f /etc/apt/sources.list ]; then
    awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
      /etc/apt/sources.list | head -n1
  fi
}

# Verifies the root: libggml0 0.27.x (its test-backend-ops), libggml-dev and the library it links
# (libggml.so -> libggml<N>) of one version, the headers, and the dynamic CPU variants in the backend
# directory ggml's cmake config names. Prints the versions.
verify() { # root
  local root=$1 v0 vdev triplet libdir so pkg vlib bdir variants
  v0=$(in_root "$root" - dpkg-query -W -f '${Version}' libggml0 2>/dev/null) || v0=
  case "$v0" in 0.27.*) ;; *)
    echo "setup-ggml-peer: libggml0 version '$v0', want 0.27.x" >&2
    return 1
    ;;
  esac
  vdev=$(in_root "$root" - dpkg-query -W -f '${Version}' libggml-dev 2>/dev/null) || vdev=
  triplet=$(in_root "$root" - gcc -dumpmachine) || return 1
  libdir=/usr/lib/$triplet
  so=$(readlink "$root$libdir/libggml.so" || true)
  pkg=$(in_root "$root" - dpkg-query -S "$libdir/${so%%.so.*}.so.${so#*.so.}" 2>/dev/null | cut -d: -f1 | head -n1) || pkg=
  vlib=$(in_root "$root" - dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null) || vlib=
  if [ -z "$vdev" ] || [ "$vdev" != "$vlib" ]; then
    echo "setup-ggml-peer: libggml-dev '$vdev' but libggml.so -> $so of $pkg '$vlib'" >&2
    return 1
  fi
  for h in ggml.h ggml-cpu.h ggml-backend.h ggml-alloc.h; do
    [ -f "$root/usr/include/$h" ] || { echo "setup-ggml-peer: no /usr/include/$h in the root" >&2; return 1; }
  done
  for t in "/usr/libexec/$triplet/ggml/test-backend-ops" "/usr/libexec/$triplet/ggml/${pkg#libggml}/test-backend-ops"; do
    [ -x "$root$t" ] || { echo "setup-ggml-peer: no $t" >&2; return 1; }
  done
  bdir=$(sed -n 's/^set(GGML_BACKEND_DIR "\(.*\)")/\1/p' "$root$libdir/cmake/ggml/ggml-config.cmake")
  variants=$(cd "$root$bdir" 2>/dev/null && ls libggml-cpu-*.so 2>/dev/null | sed 's/libggml-cpu-//; s/\.so//' | tr '\n' ' ') || true
  [ -n "$variants" ] || { echo "setup-ggml-peer: no dynamic CPU variants (libggml-cpu-*.so) in '$bdir'" >&2; return 1; }
  echo "setup-ggml-peer: libggml0 $v0; the peer builds on libggml-dev $vdev ($pkg); CPU variants in $bdir: $variants"
}

if [ -f "$STAMP" ] && verify "$ROOT"; then
  echo "setup-ggml-peer: cached root, checked in $(($(date +%s) - t0)) s"
  echo "$ROOT"
  exit 0
fi

MIRROR=$(mirror_uri)
[ -n "$MIRROR" ] || { echo "setup-ggml-peer: cannot find the Debian mirror URI in the apt sources" >&2; exit 1; }
if ! command -v debootstrap >/dev/null; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq debootstrap >/dev/null
fi

# Built in a side directory and moved into place only once verified, so a failed run leaves no half root.
work="$ROOT.partial"
mkdir -p "$CACHE"
if [ ! -f "$work/.qmm-debootstrap-done" ]; then # a finished debootstrap of an interrupted run is kept
  $SUDO rm -rf "$work"
  echo "setup-ggml-peer: debootstrap trixie into $work"
  $SUDO debootstrap --variant=minbase trixie "$work" "$MIRROR" >"$CACHE/trixie-ggml-debootstrap.log" 2>&1 || {
    tail -n 20 "$CACHE/trixie-ggml-debootstrap.log" >&2
    exit 1
  }
  touch "$work/.qmm-debootstrap-done"
fi
printf 'Types: deb\nURIs: %s\nSuites: trixie trixie-updates trixie-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
  "$MIRROR" | $SUDO tee "$work/etc/apt/sources.list.d/debian.sources" >/dev/null
$SUDO rm -f "$work/etc/apt/sources.list"
# The chroot's apt cannot drop privileges to _apt without a full /dev; run it as root.
echo 'APT::Sandbox::User "root";' | $SUDO tee "$work/etc/apt/apt.conf.d/99qmm-sandbox" >/dev/null
echo "setup-ggml-peer: apt-get install -t trixie-backports libggml0 libggml-dev g++"
in_root "$work" - apt-get update -qq
in_root "$work" - apt-get install -y -qq --no-install-recommends -t trixie-backports libggml0 libggml-dev g++ \
  >"$CACHE/trixie-ggml-apt.log" 2>&1 || {
  tail -n 20 "$CACHE/trixie-ggml-apt.log" >&2
  exit 1
}
in_root "$work" - apt-get clean
verify "$work"
rm -f "$work/.qmm-debootstrap-done"
touch "$work/.qmm-peer-ready"
$SUDO rm -rf "$ROOT"
$SUDO mv "$work" "$ROOT"
echo "setup-ggml-peer: root made in $(($(date +%s) - t0)) s"
echo "$ROOT"
