# bench-alloc: the allocator's figures (load 5,000 nodes x 8 GPUs, fit per Pod, a 6-container search).
# `cmake --build build --target bench-alloc` builds and runs gpuadmit-bench-alloc (or run build/gpuadmit-bench-alloc).
# Not a ctest: it prints timings and never fails on them.
add_executable(gpuadmit-bench-alloc ${CMAKE_CURRENT_LIST_DIR}/alloc.c)
target_link_libraries(gpuadmit-bench-alloc PRIVATE gpa_rules)
add_custom_target(bench-alloc COMMAND gpuadmit-bench-alloc DEPENDS gpuadmit-bench-alloc USES_TERMINAL
                  COMMENT "allocator benchmark")
