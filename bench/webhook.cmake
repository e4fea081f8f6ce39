# bench-webhook: gpuadmit serve vs the reference servers in /work/shared/bench (built at bench time, never
# committed), same run, wrk keep-alive over TLS, 16 connections. Prints figures; not a test.
if(TARGET gpuadmit)
  add_custom_target(bench-webhook
    COMMAND python3 ${CMAKE_SOURCE_DIR}/bench/webhook/bench.py --gpuadmit $<TARGET_FILE:gpuadmit>
            --work ${CMAKE_BINARY_DIR}/bench-webhook
    DEPENDS gpuadmit USES_TERMINAL
    COMMENT "webhook benchmark: gpuadmit vs h2o-ceiling vs go-baseline")
endif()
