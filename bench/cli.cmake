# bench-cli: `gpuadmit validate` on 10,000- and 100,000-Pod inputs made of the realistic Pod (a JSON List and a
# YAML stream, -o text and -o json), Pods/s, MB/s and peak RSS against the goals (50k Pods/s, 64 MB), and the
# webhook's start-up to /readyz. `cmake --build BUILD --target bench-cli` (about a minute; ~1 GB of scratch
# files in BUILD/bench-cli, removed after). Prints figures; never fails on them. See docs/performance.md.
add_executable(gpuadmit-bench-cli ${CMAKE_CURRENT_LIST_DIR}/cli.c)
target_link_libraries(gpuadmit-bench-cli PRIVATE gpa_rules)
if(TARGET gpuadmit)
  add_custom_target(bench-cli
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/bench-cli
    COMMAND gpuadmit-bench-cli ${CMAKE_CURRENT_LIST_DIR}/data/review-pod-5k.json $<TARGET_FILE:gpuadmit>
            ${CMAKE_BINARY_DIR}/bench-cli
    DEPENDS gpuadmit-bench-cli gpuadmit USES_TERMINAL
    COMMENT "gpuadmit validate on large inputs, and serve start-up")
endif()
