// A shared object that is not a snapdoc CUDA module (no entry point), for test_cuda_module_loader.
extern "C" int snapdoc_test_something_else() { return 42; }
