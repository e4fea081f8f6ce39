# bench-live: serve --cluster-inventory on a fake cluster of 5,000 GPU nodes x 8 GPUs and 100,000 Pods
# (bench/live/bench.py, the fake API server of tests/cluster.cmake). Prints figures; not a test.
if(TARGET gpuadmit AND TARGET fakeapi)
  add_custom_target(bench-live
    COMMAND python3 ${CMAKE_SOURCE_DIR}/bench/live/bench.py --gpuadmit $<TARGET_FILE:gpuadmit>
            --fakeapi ${GPA_FAKEAPI} --work ${CMAKE_BINARY_DIR}/bench-live
    DEPENDS gpuadmit fakeapi USES_TERMINAL
    COMMENT "cluster benchmark: first sync, RSS, watch event, /validate with the live inventory")
endif()

# bench-live-view: the live view in process (bench/live_view.c): objects applied, a watch event, a new
# inventory built, memory, and the engine's check with and without the live inventory. Prints figures.
if(TARGET gpa_cluster)
  add_executable(gpuadmit-bench-live-view ${CMAKE_CURRENT_LIST_DIR}/live_view.c)
  target_link_libraries(gpuadmit-bench-live-view PRIVATE gpa_cluster gpa_rules)
  add_custom_target(bench-live-view COMMAND gpuadmit-bench-live-view DEPENDS gpuadmit-bench-live-view USES_TERMINAL
                    COMMENT "live view benchmark")
endif()
