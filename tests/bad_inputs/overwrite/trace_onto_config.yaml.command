run --config {copy} --testbench testbenches/hello.yaml --trace {copy}
