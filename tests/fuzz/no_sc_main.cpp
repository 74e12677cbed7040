// libsystemc.so, which the loaders' libraries link, refers to sc_main from its own main. A
// fuzz target has its own main and never starts SystemC, so this one is never called.
extern "C" int sc_main(int /*argc*/, char* /*argv*/[]) {
  return 1;
}
