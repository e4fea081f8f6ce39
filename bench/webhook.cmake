# bench-webhook: gpuadmit serve vs the reference servers in /work/shared/bench (built at bench time, never
# committed), same run, wrk keep-alive over TLS, 16 connections. Prints figures; not a test.
if(TARGET gpuadmit)
  add_custom_target(bench-webhook
    COMMAND python3 ${CMAKE_SOURCE_DIR}/bench/webhook/bench.py --gpuadmit $<TARGET_FILE:gpuadmit>
            --work ${CMAKE_BINARY_DIR}/bench-webhook
    DEPENDS gpuadmit USES_TERMINAL
    COMMENT "webhook benchmark: gpuadmit vs h2o-ceiling vs go-baseline")
endif()

# bench-webhook-attack: issues 13 and 17's attacks at full size against `gpuadmit serve` with its defaults; prints peak
# and after-attack RSS per attack (docs/webhook.md#limits). Not a test: tests/e2e/run_attack.py holds those.
if(TARGET gpuadmit)
  add_custom_target(bench-webhook-attack
    COMMAND python3 -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/bench/webhook/attack.py
            --gpuadmit $<TARGET_FILE:gpuadmit> --work ${CMAKE_BINARY_DIR}/bench-webhook-attack
    DEPENDS gpuadmit USES_TERMINAL
    COMMENT "webhook under attack: peak RSS per attack")
endif()

# bench-webhook-cpu: the heaviest reviews for the allocator (tests/e2e/heavy.py) on 5,000 nodes; each alone, then a
# trivial review's latency while 4 clients attack (docs/webhook.md#cpu); the script's --baseline BIN adds another
# build's figures in the same run. Prints figures; not a test.
if(TARGET gpuadmit)
  add_custom_target(bench-webhook-cpu
    COMMAND python3 -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/bench/webhook/cpu.py
            --gpuadmit $<TARGET_FILE:gpuadmit> --work ${CMAKE_BINARY_DIR}/bench-webhook-cpu
    DEPENDS gpuadmit USES_TERMINAL
    COMMENT "webhook under CPU attack: a trivial review's latency")
endif()

# bench-webhook-attack25: issue 25's attacks (a RayCluster of 4,000 hostname-pinned groups on 5,000 nodes, a 4.1 MB
# rule-breaking review, 3.8 MB rule-clean reviews, a HAMi Pod with a 250 KB use-gpuuuid list on 2,000 HAMi nodes), 1
# then 4 clients at once; prints the answers' status counts, peak and after RSS, a trivial review's p50/p99 meanwhile;
# then validate, fit and (with the fake API server) explain on the HAMi case. Prints figures; not a test.
if(TARGET gpuadmit)
  add_custom_target(bench-webhook-attack25
    COMMAND python3 -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/bench/webhook/attack25.py
            --gpuadmit $<TARGET_FILE:gpuadmit> --work ${CMAKE_BINARY_DIR}/bench-webhook-attack25
            --fakeapi ${CMAKE_BINARY_DIR}/gpa-fakeapi # built with the tests (tests/cluster.cmake); explain is left out without it
    DEPENDS gpuadmit USES_TERMINAL
    COMMENT "webhook under issue 25's attacks: answers, RSS, trivial latency")
endif()
