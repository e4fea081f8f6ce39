# `gpuadmit explain` end to end (tests/e2e/run_explain.py) against the fake API server that tests/cluster.cmake
# builds, holding a real-shaped cluster. Labels "e2e;cluster".
if(TARGET gpuadmit AND TARGET fakeapi AND GPA_PYTHON3)
  foreach(t Explain.test_json Explain.test_text_and_exit_codes Explain.test_control_characters_escaped)
    string(REPLACE "." "_" name ${t})
    add_test(NAME e2e_explain_${name}
             COMMAND ${GPA_PYTHON3} -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/tests/e2e/run_explain.py ${t})
    set_tests_properties(e2e_explain_${name} PROPERTIES
      ENVIRONMENT "GPUADMIT=$<TARGET_FILE:gpuadmit>;GPA_FAKEAPI=${GPA_FAKEAPI};E2E_WORK=${CMAKE_BINARY_DIR}/e2e/explain_${name}"
      TIMEOUT 120 LABELS "e2e;cluster")
  endforeach()
endif()
