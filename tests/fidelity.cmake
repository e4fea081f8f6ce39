# The fidelity suites (tests/fidelity/, docs/testing.md#fidelity-suites): the peer schedulers' own test cases
# (koord-scheduler's deviceshare plugin, Volcano's mGPU plugin) translated into `gpuadmit test` suites, run by the
# built binary: one ctest per suite file named gpuadmit-test.yaml, `fidelity/<folder>`; ctest -L fidelity.
#   fidelity_pending_readable   the suites under tests/fidelity/pending/ (the peers' outcomes for behaviour that is
#                               still changing; not run as tests yet) must at least read: exit 0 or 1, never 2
if(TARGET gpuadmit)
  file(GLOB_RECURSE GPA_FIDELITY_SUITES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fidelity/gpuadmit-test.yaml)
  foreach(suite ${GPA_FIDELITY_SUITES})
    get_filename_component(dir ${suite} DIRECTORY)
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR}/tests/fidelity ${dir})
    add_test(NAME fidelity/${rel} COMMAND $<TARGET_FILE:gpuadmit> test --allow-read tests/fidelity ${suite} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(fidelity/${rel} PROPERTIES LABELS "suites;fidelity")
  endforeach()

  file(GLOB GPA_FIDELITY_PENDING CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fidelity/pending/*.yaml)
  if(GPA_FIDELITY_PENDING)
    add_test(NAME fidelity_pending_readable
             COMMAND sh -c "\"$0\" test --allow-read tests/fidelity \"$@\" > /dev/null; test $? -le 1" $<TARGET_FILE:gpuadmit> ${GPA_FIDELITY_PENDING}
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(fidelity_pending_readable PROPERTIES LABELS "suites;fidelity")
  endif()
endif()
