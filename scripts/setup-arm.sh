#!/usr/bin/env bash
# Installs, from Debian's packages, what the aarch64 cross build and its emulated tests need:
#   gcc-aarch64-linux-gnu + libc6-dev-arm64-cross   (cross gcc and the arm64 sysroot in /usr/aarch64-linux-gnu)
#   qemu-user from trixie-backports (or trixie)     (Debian 12's qemu 7.2 gets SME int8 outer products wrong
#                                                    and has no SME2)
#   clang-19 + lld-19 + libclang-rt-19-dev:arm64    (SME intrinsics, -rtlib=compiler-rt; in bookworm itself)
# Idempotent: re-running only re-checks. Extra suites are added with the mirror URI the machine's apt sources
# already use (read at run time, so no host name lives in the repo) and pinned low, so only packages asked for
# by -t come from them.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive

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

MIRROR=$(mirror_uri)
if [ -z "$MIRROR" ]; then
    echo "setup-arm: cannot find the Debian mirror URI in the apt sources" >&2
    exit 1
fi
CODENAME=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")

changed=0
add_suite() { # name suites
    local file="/etc/apt/sources.list.d/qmm-$1.sources"
    local want
    want=$(printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$MIRROR" "$2")
    if [ ! -f "$file" ] || [ "$(cat "$file")" != "$want" ]; then
        echo "$want" | $SUDO tee "$file" >/dev/null
        changed=1
    fi
}
pin_low() { # name suite-pattern
    local file="/etc/apt/preferences.d/qmm-$1.pref"
    local want
    want=$(printf 'Package: *\nPin: release n=%s\nPin-Priority: 50\n' "$2")
    if [ ! -f "$file" ] || [ "$(cat "$file")" != "$want" ]; then
        echo "$want" | $SUDO tee "$file" >/dev/null
        changed=1
    fi
}

if [ "$CODENAME" = bookworm ]; then
    # trixie-backports (qemu 11) / trixie (qemu 10) carry the new qemu; its qemu-user is statically linked, so
    # nothing else comes from these suites. clang-19 is in bookworm itself.
    add_suite trixie "trixie trixie-backports"
    pin_low trixie trixie
    pin_low trixie-backports trixie-backports
fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    changed=1
fi

stamp=/var/lib/apt/periodic/qmm-setup-arm-stamp
if [ "$changed" = 1 ] || [ ! -f "$stamp" ] || [ -n "$(find /var/lib/apt/lists -maxdepth 0 -mmin +720 2>/dev/null)" ]; then
    $SUDO apt-get update -q
    $SUDO mkdir -p "$(dirname "$stamp")" && $SUDO touch "$stamp"
fi

need() { for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || { echo missing; return; }; done; }

# Cross gcc and sysroot from the base suite.
if [ -n "$(need gcc-aarch64-linux-gnu libc6-dev-arm64-cross)" ]; then
    $SUDO apt-get install -y -q --no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross
fi

# qemu-user: the newest candidate among trixie-backports and trixie (must run SME2: qemu >= 9).
qemu_ok() {
    command -v qemu-aarch64 >/dev/null 2>&1 || return 1
    local v
    v=$(qemu-aarch64 --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -n1)
    [ -n "$v" ] && [ "$v" -ge 9 ]
}
if ! qemu_ok; then
    if [ "$CODENAME" = bookworm ]; then
        bp=$(apt-cache policy qemu-user 2>/dev/null | awk '/trixie-backports/ {print "y"; exit}')
        if [ -n "$bp" ]; then suite=trixie-backports; else suite=trixie; fi
        $SUDO apt-get install -y -q --no-install-recommends -t "$suite" qemu-user
    else
        $SUDO apt-get install -y -q --no-install-recommends qemu-user
    fi
fi

# clang-19, lld-19 and the arm64 compiler-rt builtins.
if [ -n "$(need clang-19 lld-19 libclang-rt-19-dev:arm64)" ]; then
    $SUDO apt-get install -y -q --no-install-recommends clang-19 lld-19 libclang-rt-19-dev:arm64
fi

echo "setup-arm: installed"
for p in gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user clang-19 lld-19 libclang-rt-19-dev:arm64; do
    printf '  %-28s %s\n' "$p" "$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo MISSING)"
done
qemu-aarch64 --version | head -n1
