#!/usr/bin/env bash
# The project's two commands:  ./dev.sh app   (set up, open the app; ./dev.sh app --help for its options)
#                              ./dev.sh test  (set up, run every test)
# Each creates .venv on first use and reinstalls only when a requirements file changes.
set -euo pipefail
cd "$(dirname "$0")"
VENV=.venv

setup() {  # $1: the requirements file to install
    if [ ! -x "$VENV/bin/python" ]; then
        python3 -m venv "$VENV"
    fi
    local stamp="$VENV/.installed-$(basename "$1")"
    local want
    want=$(cat requirements*.txt | sha256sum | cut -d' ' -f1)
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        # pip would compile every module one at a time (64 s of a 127 s install); compileall does it on every core.
        # Its status is not checked: some packages ship files that are not Python 3 on purpose, as pip ignores.
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile -r "$1"
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile --no-deps \
            -r requirements-nodeps.txt
        "$VENV/bin/python" -m compileall -q -j 0 "$VENV/lib" >/dev/null || true
        echo "$want" > "$stamp"
    fi
}

browser() {  # the browser tests (tests/e2e) need Debian's chromium and fonts with CJK and emoji glyphs; the
             # deployment's tests nginx, logrotate and systemd-analyze (deploy/)
    local fonts
    fonts=$(fc-list 2>/dev/null || true)
    if [ -x /usr/bin/chromium ] && [ -x /usr/sbin/nginx ] && [ -x /usr/sbin/logrotate ] \
        && command -v systemd-analyze >/dev/null && grep -qi "wqy" <<<"$fonts" \
        && grep -qi "noto color emoji" <<<"$fonts"; then
        return
    fi
    # Never `playwright install`: it downloads a browser; the distribution's own is used instead.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-wqy-zenhei \
            fonts-noto-color-emoji nginx logrotate systemd
    else
        echo "the browser tests need: apt-get install chromium chromium-driver fonts-wqy-zenhei" \
            "fonts-noto-color-emoji nginx logrotate systemd (as root)" >&2
        exit 1
    fi
}

case "${1:-}" in
    app)
        setup requirements.txt
        # viz_app/cli.py: the app's own options (--model, --port, --serve), the rest to `streamlit run app.py`
        exec "$VENV/bin/python" -m viz_app.cli "${@:2}"
        ;;
    test)
        setup requirements-dev.txt
        browser
        # a worker per core, at most 4, each test file on one worker (its fixtures built once)
        exec "$VENV/bin/python" -m pytest -q -n auto --maxprocesses 4 --dist loadfile tests "${@:2}"
        ;;
    *)
        echo "usage: ./dev.sh app | ./dev.sh test [pytest arguments]" >&2
        exit 2
        ;;
esac
