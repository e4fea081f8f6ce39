# Piecewise reading in the CLI (tests/stream/): the built gpuadmit on generated Lists and YAML streams.
find_program(GPA_PYTHON3 python3)
if(TARGET gpuadmit AND GPA_PYTHON3)
  foreach(case list faults yaml)
    add_test(NAME stream_${case} COMMAND bash ${CMAKE_SOURCE_DIR}/tests/stream/stream_test.sh ${case} $<TARGET_FILE:gpuadmit>)
    set_tests_properties(stream_${case} PROPERTIES LABELS cli)
  endforeach()
endif()
