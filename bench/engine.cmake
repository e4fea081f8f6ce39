# The engine benchmark (bench/engine.c): `cmake --build BUILD --target bench` prints the hot path's figures
# next to their budgets (decode + rules + response <= 20 us per review, gpuadmit validate >= 50k Pods/s).
# Figures only: nothing here is a test, and timing never fails a build.
add_executable(gpuadmit-bench-engine ${CMAKE_CURRENT_LIST_DIR}/engine.c)
target_link_libraries(gpuadmit-bench-engine PRIVATE gpa_rules)
if(TARGET gpuadmit)
  add_custom_target(bench
    COMMAND gpuadmit-bench-engine ${CMAKE_CURRENT_LIST_DIR}/data/review-pod-5k.json $<TARGET_FILE:gpuadmit>
    DEPENDS gpuadmit-bench-engine gpuadmit
    USES_TERMINAL
    COMMENT "gpuadmit engine benchmark")
endif()
