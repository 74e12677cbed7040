#!/usr/bin/env bash
# Installs a build into a temporary prefix, checks what is there, builds
# examples/host-program against it out of tree and runs it, then runs the installed npusim
# with configs given by name from another working directory, and the installed Python
# package from there. Removes everything it made.
#   install_test.sh BUILD_DIR SOURCE_DIR CXX_COMPILER [LAUNCHER] [CXX_FLAGS] [LINKER_FLAGS]
set -euo pipefail

build=$1
source=$2
cxx=$3
launcher=${4:-}
cxx_flags=${5:-}
linker_flags=${6:-}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/npusim-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
elsewhere=$tmp/elsewhere # a working directory with no configs/ in it
mkdir "$elsewhere"

fail() {
  echo "install_test: $*" >&2
  exit 1
}
expect_in() { # TEXT FILE
  grep -qF -- "$1" "$2" || {
    cat "$2" >&2
    fail "expected '$1' in $(basename "$2")"
  }
}

# 1. The installed tree.
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || {
  cat "$tmp/install.log" >&2
  fail "cmake --install failed"
}
for f in bin/npusim lib/libnpu_runtime.a lib/libnpu_app.a \
  lib/cmake/npusim/npusimConfig.cmake lib/cmake/npusim/npusimConfigVersion.cmake \
  lib/cmake/npusim/npusimTargets.cmake include/npusim/cli/app.h \
  include/npusim/runtime/runtime.h include/npusim/models/compute/op.h \
  share/npusim/configs/edge-npu.yaml share/npusim/configs/datacenter-npu.yaml \
  share/npusim/configs/datacenter-gpu.yaml share/npusim/scripts/plot_run.py; do
  [[ -f $prefix/$f ]] || fail "cmake --install left out $f"
done
if grep -l -e '-Werror' -e '-Wall' "$prefix"/lib/cmake/npusim/*.cmake; then
  fail "the exported targets pass the project's warning flags on to users"
fi
if grep -l -F "$source" "$prefix"/lib/cmake/npusim/*.cmake; then
  fail "the exported targets name the source tree"
fi

# 2. The example, configured and built out of tree against the prefix alone. With ccache,
# paths below $tmp hash the same from run to run.
export CCACHE_BASEDIR=$tmp
cmake -S "$source/examples/host-program" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" \
  -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$linker_flags" \
  >"$tmp/configure.log" 2>&1 || {
  cat "$tmp/configure.log" >&2
  fail "configuring examples/host-program failed"
}
expect_in "npusim_DIR:PATH=$prefix/lib/cmake/npusim" "$tmp/example/CMakeCache.txt"
cmake --build "$tmp/example" >"$tmp/build.log" 2>&1 || {
  cat "$tmp/build.log" >&2
  fail "building examples/host-program failed"
}
if grep -F -e "-I$source" "$tmp/example/CMakeFiles/host_program.dir/flags.make"; then
  fail "the example compiles with the source tree on its include path"
fi

# 3. The example runs from elsewhere: its default config, edge-npu, comes from the prefix.
(cd "$elsewhere" && "$tmp/example/host_program" --out "$tmp/example-out") \
  >"$tmp/example.out" 2>&1 || {
  cat "$tmp/example.out" >&2
  fail "examples/host-program failed"
}
expect_in "host_program: matmul 256x256x256 and relu on the device: " "$tmp/example.out"
expect_in "\"config_file\": \"$prefix/share/npusim/configs/edge-npu.yaml\"" "$tmp/example-out/report.json"

# 4. The installed npusim finds configs by name, with and without .yaml, extends included.
for config in edge-npu datacenter-npu.yaml; do
  (cd "$elsewhere" && "$prefix/bin/npusim" run --config "$config" \
    --testbench "$source/testbenches/hello.yaml" --out "$tmp/run-$config") \
    >"$tmp/run.out" 2>&1 || {
    cat "$tmp/run.out" >&2
    fail "npusim run --config $config failed"
  }
  expect_in "\"config_file\": \"$prefix/share/npusim/configs/${config%.yaml}.yaml\"" \
    "$tmp/run-$config/report.json"
done

# 5. A name that matches nothing: exit 2, one line naming the configs there are.
status=0
(cd "$elsewhere" && "$prefix/bin/npusim" run --config edge-npux \
  --testbench "$source/testbenches/hello.yaml") >"$tmp/bad.out" 2>"$tmp/bad.err" || status=$?
[[ $status == 2 ]] || fail "npusim run --config edge-npux: exit $status, expected 2"
[[ ! -s $tmp/bad.out && $(wc -l <"$tmp/bad.err") == 1 ]] || {
  cat "$tmp/bad.err" >&2
  fail "npusim run --config edge-npux: expected one line on stderr and nothing on stdout"
}
expect_in "npusim: --config edge-npux: error: no such file, and no config of that name; expected a path or one of datacenter-gpu, datacenter-npu, edge-npu, tpu-v3-core (the configs in $prefix/share/npusim/configs); did you mean 'edge-npu'?" "$tmp/bad.err"

# 6. The Python package (where the build has it), installed into the prefix's
# site-packages: imported from elsewhere with that folder on the path, it finds configs by
# name in the prefix and runs sweeps with the prefix's npusim.
if [[ -d $build/python/npusim ]]; then
  site=$(cd "$prefix" && ls -d lib/python3*/*-packages 2>/dev/null | head -1)
  [[ -n $site && -f $prefix/$site/npusim/__init__.py && -f $prefix/$site/npusim/_paths.py ]] ||
    fail "cmake --install left out the Python package"
  (cd "$elsewhere" && PYTHONPATH="$prefix/$site" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c "
import npusim, sys
assert npusim.__file__.startswith('$prefix/'), npusim.__file__
result = npusim.run('edge-npu', '$source/testbenches/hello.yaml')
assert result.report['config_file'] == '$prefix/share/npusim/configs/edge-npu.yaml', result.report['config_file']
table = npusim.sweep({'config': 'datacenter-npu', 'testbench': '$source/testbenches/hello.yaml',
                      'parameters': {'compute.units': [1, 2]}, 'metrics': ['sim.simulated_ns']},
                     quiet=True)
assert [row['status'] for row in table] == ['ok', 'ok'], table.rows
print('python: ok', result.simulated_ns)
") >"$tmp/python.out" 2>&1 || {
    cat "$tmp/python.out" >&2
    fail "the installed Python package failed"
  }
  expect_in "python: ok" "$tmp/python.out"
fi
echo "install_test: ok"
