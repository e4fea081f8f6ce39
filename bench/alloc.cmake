# bench-alloc: the allocator's figures (load 5,000 nodes x 8 GPUs, fit per Pod, a 6-container search).
# Built with the tree; run it by hand (`build/bench-alloc`) or with `cmake --build build --target bench-alloc-run`.
# Not a ctest: it prints timings and never fails on them.
add_executable(bench-alloc ${CMAKE_CURRENT_LIST_DIR}/alloc.c)
target_link_libraries(bench-alloc PRIVATE gpa_rules)
add_custom_target(bench-alloc-run COMMAND bench-alloc DEPENDS bench-alloc USES_TERMINAL)
