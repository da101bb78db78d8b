# shellcheck shell=bash
# No Kafka counterpart: kafkalite's test set-up. Sourced by bin/test and .ci/run.
#
# Installs what the test suite needs, each piece only when it is missing, so a
# second run costs a few cheap checks:
#   kl_install_python     pip install -e '.[test,spark]'  (kafkalite, pytest, the Python clients, pyspark)
#   kl_install_kcat       Debian's kcat
#   kl_install_kafkajs    npm ci in tests/js (kafkajs 2.2.x, pinned by package-lock.json)
#   kl_install_sarama     Debian's Go and sarama 1.22 (golang-go, golang-github-shopify-sarama-dev)
#   kl_install_zookeeper  Debian's zookeeper        (cluster tests)
#   kl_install_java       openjdk-17-jre-headless   (Spark tests)
#   kl_install_test_requirements   all of them
#
# Needs KL_ROOT (the repository root). Set KAFKALITE_NO_INSTALL=1 to skip all of it.
# Messages go to stderr with an "[install]" prefix; tool output goes to a log file
# that is printed only when a step fails.

: "${KL_ROOT:?KL_ROOT must name the repository root}"
KL_INSTALL_LOG="${KL_INSTALL_LOG:-${TMPDIR:-/tmp}/kafkalite-install.log}"
KL_APT_UPDATED="${KL_APT_UPDATED:-}"

kl_say() { printf '[install] %s\n' "$*" >&2; }

# Run a command with its output in the install log; show the log's tail if it fails.
kl_run() {
    if ! "$@" >>"$KL_INSTALL_LOG" 2>&1; then
        kl_say "FAILED: $*  (last lines of $KL_INSTALL_LOG:)"
        tail -n 30 "$KL_INSTALL_LOG" >&2
        return 1
    fi
}

kl_sudo() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}

kl_dpkg_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# apt-get install the named Debian packages that are not installed yet.
kl_apt_install() {
    local missing=() pkg
    for pkg in "$@"; do
        kl_dpkg_installed "$pkg" || missing+=("$pkg")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        kl_say "cannot install ${missing[*]}: no apt-get on this machine; install them by hand"
        return 1
    fi
    if [ -z "$KL_APT_UPDATED" ]; then
        kl_say "apt-get update"
        kl_run kl_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        KL_APT_UPDATED=1
    fi
    kl_say "apt-get install ${missing[*]}"
    kl_run kl_sudo env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
}

# kafkalite must be importable *from this checkout* (an editable install made from
# another clone would test the wrong code), and every test requirement importable.
kl_python_ready() {
    (cd / && python - "$KL_ROOT" <<'EOF'
import os, sys
root = os.path.realpath(sys.argv[1])
try:
    import kafkalite, pytest, pytest_timeout, hypothesis, kafka, confluent_kafka, aiokafka, kazoo, cramjam, mypy, cryptography
    import pyspark, pyarrow
except ImportError:
    sys.exit(1)
here = os.path.realpath(os.path.dirname(kafkalite.__file__))
sys.exit(0 if here == os.path.join(root, "kafkalite") else 1)
EOF
    ) >/dev/null 2>&1
}

kl_install_python() {
    kl_python_ready && return 0
    kl_say "pip install -e '.[test,spark]'"
    kl_run python -m pip install --disable-pip-version-check --root-user-action=ignore -q -e "$KL_ROOT[test,spark]"
}

kl_install_kcat() {
    command -v kcat >/dev/null 2>&1 || kl_apt_install kcat
}

# tests/integration/test_sarama.py builds tests/go/sarama_check from Debian's Go sources in GOPATH mode
# (/usr/share/gocode, no module proxy). sarama 1.22 compresses zstd through cgo (DataDog/zstd), so the
# build needs a C compiler, which golang-go only recommends.
kl_install_sarama() {
    local pkgs=(golang-go golang-github-shopify-sarama-dev)
    command -v gcc >/dev/null 2>&1 || pkgs+=(gcc libc6-dev)
    kl_apt_install "${pkgs[@]}"
}

kl_install_zookeeper() {
    kl_dpkg_installed zookeeper || kl_apt_install zookeeper
}

kl_install_java() {
    command -v java >/dev/null 2>&1 || kl_apt_install openjdk-17-jre-headless
}

# kafkajs is installed when node_modules holds the version package-lock.json pins.
kl_kafkajs_ready() {
    local js="$KL_ROOT/tests/js"
    [ -f "$js/node_modules/kafkajs/package.json" ] || return 1
    command -v node >/dev/null 2>&1 || return 1
    node -e '
        const want = require(process.argv[1]).packages["node_modules/kafkajs"].version
        const have = require(process.argv[2]).version
        process.exit(want === have ? 0 : 1)
    ' "$js/package-lock.json" "$js/node_modules/kafkajs/package.json" 2>/dev/null
}

kl_install_kafkajs() {
    kl_kafkajs_ready && return 0
    command -v npm >/dev/null 2>&1 || kl_apt_install nodejs npm
    kl_say "npm ci in tests/js (kafkajs)"
    (cd "$KL_ROOT/tests/js" && kl_run npm ci --no-audit --no-fund --loglevel=error)
}

kl_install_test_requirements() {
    if [ "${KAFKALITE_NO_INSTALL:-}" = 1 ]; then
        return 0
    fi
    kl_install_python
    kl_install_kcat
    kl_install_kafkajs
    kl_install_sarama       # tests/integration/test_sarama.py (the Go client)
    kl_install_zookeeper    # tests/integration/test_kazoo_backend.py (cluster mode on a real ZooKeeper)
    kl_install_java         # ZooKeeper and the Spark tests run on the JVM
}
