# Fuzz drivers (libFuzzer), one per entry that reads untrusted bytes: tests/fuzz/fuzz_{json,yaml,quantity}.c (the
# parsers), fuzz_decode.c (document -> model -> gpa_check), fuzz_review.c (the webhook's gpa_review), fuzz_config.c,
# fuzz_inventory.c, fuzz_suite.c (cli/suite/suite.c), fuzz_stream.c (the CLI's piecewise reader against a whole parse) and
# fuzz_kubeconfig.c (cluster/kubeconfig.c); docs/testing.md#fuzzing has each one's invariants and the long
# run. Built only on request, with clang:
#
#   CC=clang cmake -S . -B build-fuzz -DGPA_FUZZ=ON -DGPA_SANITIZE=ON
#   cmake --build build-fuzz --target fuzz        (every driver; or one: --target fuzz_review)
#   mkdir -p build-fuzz/corpus-json && build-fuzz/fuzz_json build-fuzz/corpus-json tests/fuzz/seeds/json -max_total_time=60
#   mkdir -p build-fuzz/corpus-decode && build-fuzz/fuzz_decode build-fuzz/corpus-decode tests/fuzz/seeds/decode examples \
#       tests/cases -max_total_time=60
#
# The engine libraries (and gpa_load, gpa_cli for the suite reader) are instrumented for coverage
# (fuzzer-no-link) so the fuzzer sees inside them.
# Seeds: tests/fuzz/seeds/<parser>/ plus any case directory (examples/, tests/cases/) given on the command line.
# Registered as ctests (label "fuzz") that replay the seeds once, so a crash found and added as a seed stays fixed.
option(GPA_FUZZ "Build the libFuzzer drivers (requires clang)" OFF)
if(GPA_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GPA_FUZZ=ON needs clang: CC=clang cmake -DGPA_FUZZ=ON ...")
  endif()
  foreach(layer ${GPA_LAYERS} load cli cluster)
    target_compile_options(gpa_${layer} PRIVATE -fsanitize=fuzzer-no-link)
  endforeach()
  # Every driver: tests/fuzz/fuzz_<name>.c, seeds in tests/fuzz/seeds/<name>/, target fuzz_<name>.
  set(GPA_FUZZ_DRIVERS json yaml quantity decode review config inventory suite stream kubeconfig cel)
  foreach(name ${GPA_FUZZ_DRIVERS})
    add_executable(fuzz_${name} ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_${name}.c)
    target_include_directories(fuzz_${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/fuzz)
    target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_${name} PRIVATE gpa_rules)
    if(name STREQUAL "review")
      target_link_libraries(fuzz_review PRIVATE PkgConfig::JANSSON) # reads the answers with another JSON reader
    elseif(name STREQUAL "kubeconfig")
      target_link_libraries(fuzz_kubeconfig PRIVATE gpa_cluster)
    elseif(name STREQUAL "suite")
      target_link_libraries(fuzz_suite PRIVATE gpa_cli)
      target_compile_definitions(fuzz_suite PRIVATE GPA_FUZZ_SUITE_FILES="${CMAKE_CURRENT_LIST_DIR}/fuzz/suite-files")
    endif()
    set(seeds ${CMAKE_CURRENT_LIST_DIR}/fuzz/seeds/${name})
    if(EXISTS ${seeds})
      set(extra)
      if(name STREQUAL "decode")
        set(extra ${CMAKE_SOURCE_DIR}/examples ${CMAKE_SOURCE_DIR}/tests/cases)
      endif()
      add_test(NAME fuzz_${name}_seeds COMMAND fuzz_${name} -runs=0 ${seeds} ${extra})
      set_tests_properties(fuzz_${name}_seeds PROPERTIES LABELS fuzz)
    endif()
  endforeach()
  # `cmake --build DIR --target fuzz` builds every driver (scripts/test.sh).
  list(TRANSFORM GPA_FUZZ_DRIVERS PREPEND fuzz_ OUTPUT_VARIABLE GPA_FUZZ_TARGETS)
  add_custom_target(fuzz DEPENDS ${GPA_FUZZ_TARGETS})
endif()
