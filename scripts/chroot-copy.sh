# chroot-copy.sh -- sourced by scripts/dist.sh and scripts/check-arm64.sh:
# chroot_copy ROOT WORK SRC MESON_DIR puts the checkout SRC (without .git,
# build directories, dist/ and debian/) into WORK/src, and the host's meson
# (its mesonbuild package at MESON_DIR: Debian 11's own meson is older than
# meson.build's floor) into ROOT/opt/meson with a `meson` launcher, for a
# build inside the chroot ROOT.  WORK is emptied first.
chroot_copy() {
    _root=$1 _work=$2 _src=$3 _meson_dir=$4
    rm -rf "$_work"
    mkdir -p "$_work/src" "$_root/opt/meson"
    tar -C "$_src" --exclude=./.git --exclude='./build*' --exclude=./dist --exclude=./.gl \
        --exclude=./.whl --exclude=./debian -cf - . | tar -C "$_work/src" -xf -
    rm -rf "$_root/opt/meson/mesonbuild"
    cp -a "$_meson_dir" "$_root/opt/meson/mesonbuild"
    cat >"$_root/opt/meson/meson" <<'PY'
#!/usr/bin/python3
import sys
sys.path.insert(0, "/opt/meson")
from mesonbuild.mesonmain import main
sys.exit(main())
PY
    chmod 755 "$_root/opt/meson/meson"
}
