// A shared library without gld_register_custom_ops
// (tests/tools/custom_ops_tool_test.cc: the missing-symbol error).
extern "C" __attribute__((visibility("default"))) int gld_not_the_entry_point(void) { return 0; }
