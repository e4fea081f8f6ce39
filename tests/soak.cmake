# The soak (tests/soak/soak.py): `gpuadmit serve` on loopback under mixed traffic for 40 s, with a certificate
# rotation, a configuration reload and an inventory change in the middle; every answer checked against
# `gpuadmit review`, RSS flat, no restart. Label "soak"; the long run is in docs/testing.md#soak.
find_program(GPA_SOAK_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TARGET gpuadmit AND GPA_SOAK_PYTHON3)
  set(rss_check)
  if(GPA_SANITIZE)
    set(rss_check --no-rss-check) # AddressSanitizer's quarantine grows by design
  endif()
  add_test(NAME soak_short
           COMMAND ${GPA_SOAK_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/soak/soak.py --gpuadmit $<TARGET_FILE:gpuadmit>
                   --duration 40 --concurrency 4 --work ${CMAKE_BINARY_DIR}/soak ${rss_check})
  # Timing matters (reloads under load, RSS): the machine to itself, as the e2e tests.
  set_tests_properties(soak_short PROPERTIES LABELS soak TIMEOUT 240 RUN_SERIAL TRUE)
endif()
