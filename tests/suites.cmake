# Test suites run by the built binary (`gpuadmit test`, docs/testing.md):
#   suite_examples          every suite under examples/tests (all rules, mutations, operations, actions, inventory)
#   suite_examples_junit    the same as JUnit XML, which must parse (python3's xml.dom.minidom) and count no failure
#   suite_examples_json     the same as JSON, which must parse and report 0 failed
#   case/<rule>/<case>      one ctest per data-driven case directory under tests/cases
if(TARGET gpuadmit)
  set(GPA_TEST_BIN $<TARGET_FILE:gpuadmit>)
  add_test(NAME suite_examples COMMAND ${GPA_TEST_BIN} test --allow-read examples examples/tests WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(suite_examples PROPERTIES LABELS suites)

  find_program(GPA_SUITES_PYTHON3 python3)
  if(GPA_SUITES_PYTHON3)
    add_test(NAME suite_examples_junit
             COMMAND sh -c "\"$1\" test -o junit --allow-read examples examples/tests > \"$2\" && \"$3\" -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]).documentElement; sys.exit(0 if d.tagName == \"testsuites\" and int(d.getAttribute(\"tests\")) > 0 and d.getAttribute(\"failures\") == \"0\" and d.getAttribute(\"errors\") == \"0\" else 1)' \"$2\""
                     sh ${GPA_TEST_BIN} ${CMAKE_BINARY_DIR}/suite_examples.junit.xml ${GPA_SUITES_PYTHON3}
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    add_test(NAME suite_examples_json
             COMMAND sh -c "\"$1\" test -o json --allow-read examples examples/tests | \"$2\" -c 'import sys, json; r = json.load(sys.stdin); sys.exit(0 if r[\"failed\"] == 0 and r[\"passed\"] == len(r[\"results\"]) > 0 else 1)'"
                     sh ${GPA_TEST_BIN} ${GPA_SUITES_PYTHON3}
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(suite_examples_junit suite_examples_json PROPERTIES LABELS suites)
  endif()

  file(GLOB GPA_CASE_SUITES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/cases/*/*/gpuadmit-test.yaml)
  foreach(suite ${GPA_CASE_SUITES})
    get_filename_component(dir ${suite} DIRECTORY)
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR}/tests/cases ${dir})
    add_test(NAME case/${rel} COMMAND ${GPA_TEST_BIN} test --allow-read tests/cases tests/cases/${rel} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(case/${rel} PROPERTIES LABELS cases)
  endforeach()
endif()
