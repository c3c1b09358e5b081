#!/usr/bin/env python3
"""old_curl.py -- the sources that use libcurl compile against Debian 11's curl.

The release tarballs are built in Debian 11 (curl 7.74; scripts/dist.sh),
but make check builds with the host's newer curl, so an option newer than
7.74 used without its fallback broke only `make dist` (src/fleet/fetch.c
and CURLOPT_PROTOCOLS_STR, 7.85).  Here every C file of this build that
includes <curl/curl.h> is compiled again (-fsyntax-only, its own flags from
compile_commands.json, -Werror kept) through a shim curl/curl.h that
includes the real one and then says 7.74: LIBCURL_VERSION_NUM 0x074a00 and
the options added after 7.74 that gpumon knows of (CURLOPT_PROTOCOLS_STR,
CURLOPT_REDIR_PROTOCOLS_STR) made undeclared names.  Each file must
compile, so each such use needs its `#if LIBCURL_VERSION_NUM` fallback.
Not covered: other libraries' newer interfaces (meson.build's configure
checks, and make check-dist in CI, cover those).

Usage: old_curl.py BUILD_ROOT
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

SHIM = """\
/* tests/e2e/old_curl.py: curl 7.74 as Debian 11 has it, from newer headers */
#define CURL_DISABLE_DEPRECATION 1 /* the fallbacks are deprecated in newer curl */
#define CURL_DISABLE_TYPECHECK 1   /* its checks name every option, new ones too */
#include_next <curl/curl.h>
#undef LIBCURL_VERSION_NUM
#define LIBCURL_VERSION_NUM 0x074a00
#define CURLOPT_PROTOCOLS_STR gm_not_in_curl_7_74_CURLOPT_PROTOCOLS_STR
#define CURLOPT_REDIR_PROTOCOLS_STR gm_not_in_curl_7_74_CURLOPT_REDIR_PROTOCOLS_STR
"""


def syntax_only(args, shim):
    """args of one compile command -> the same, checking syntax only, shim first."""
    out = [args[0]]
    if os.path.basename(args[0]) == "ccache":
        out = args[:2]
        args = args[1:]
    out += ["-I" + shim]
    skip = 0
    for a in args[1:]:
        if skip:
            skip -= 1
            continue
        if a in ("-o", "-MQ", "-MF", "-MT"):
            skip = 1
            continue
        if a in ("-MD", "-MMD", "-c"):
            continue
        out.append(a)
    return out + ["-fsyntax-only", "-fdiagnostics-color=never"]


def main():
    build = sys.argv[1]
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    checked = []
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "curl"))
        with open(os.path.join(tmp, "curl", "curl.h"), "w") as f:
            f.write(SHIM)
        seen = set()
        for e in entries:
            src = os.path.normpath(os.path.join(e["directory"], e["file"]))
            if src in seen or not src.endswith(".c") or "/src/" not in src:
                continue
            with open(src, errors="replace") as f:
                if "<curl/curl.h>" not in f.read():
                    continue
            seen.add(src)
            cmd = syntax_only(shlex.split(e["command"]), tmp)
            r = subprocess.run(cmd, cwd=e["directory"], capture_output=True, text=True)
            checked.append(src)
            if r.returncode != 0:
                failed.append(src)
                print("FAIL: %s does not compile against curl 7.74:\n%s" % (src, r.stderr))
    if not checked:
        print("FAIL: no source of this build includes <curl/curl.h>")
        return 1
    for s in checked:
        if s not in failed:
            print("ok: %s compiles against curl 7.74" % os.path.relpath(s))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
