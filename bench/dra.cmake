# bench-dra: issue 28's numbers (bench/dra/bench.py). Loading 10^5 ResourceSlice devices (validate and serve: seconds,
# peak RSS, RSS holding them); hostile claims on them through /validate; a Pod with two claim templates on 1,000 nodes x
# 8 GPUs against a Koordinator Pod on as many cards, and their ratio. About a minute; ~150 MB of scratch files in
# BUILD/bench-dra. Prints figures; not a test.
if(TARGET gpuadmit)
  add_custom_target(bench-dra
    COMMAND python3 -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/bench/dra/bench.py --gpuadmit $<TARGET_FILE:gpuadmit>
            --work ${CMAKE_BINARY_DIR}/bench-dra
            --fakeapi ${CMAKE_BINARY_DIR}/gpa-fakeapi # built with the tests (tests/cluster.cmake); the live row is left out without it
    DEPENDS gpuadmit USES_TERMINAL
    COMMENT "DRA: the 10^5-device inventory, hostile claims, claim templates vs Koordinator")
endif()
