# Piecewise reading in the CLI (tests/stream/): the built gpuadmit on generated Lists and YAML streams.
find_program(GPA_PYTHON3 python3)
if(TARGET gpuadmit AND GPA_PYTHON3)
  foreach(case list faults yaml)
    add_test(NAME stream_${case} COMMAND bash ${CMAKE_SOURCE_DIR}/tests/stream/stream_test.sh ${case} $<TARGET_FILE:gpuadmit>)
    set_tests_properties(stream_${case} PROPERTIES LABELS cli)
  endforeach()
endif()

# The reader's libFuzzer driver (tests/fuzz/fuzz_stream.c), with the other drivers (tests/fuzz.cmake says how
# to build and run them); its seeds are replayed as a ctest.
if(GPA_FUZZ)
  add_executable(fuzz_stream ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_stream.c)
  target_compile_options(fuzz_stream PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_stream PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_stream PRIVATE gpa_rules)
  add_test(NAME fuzz_stream_seeds COMMAND fuzz_stream -runs=0 ${CMAKE_CURRENT_LIST_DIR}/fuzz/seeds/stream)
  set_tests_properties(fuzz_stream_seeds PROPERTIES LABELS fuzz)
endif()
