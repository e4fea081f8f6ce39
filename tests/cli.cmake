# CLI tests (tests/cli/): the built gpuadmit binary against tests/cli/data and examples/, one ctest per case.
find_program(GPA_PYTHON3 python3)
if(TARGET gpuadmit AND GPA_PYTHON3)
  foreach(case exit_codes unreadable directories stdin json_schema yaml_json_same examples mutate review
               config_inventory messages poisoned_inventory fit_templates kubeconfig escaped hami_inventory hami_fit
               fit_pod_level fit_strategy bounded_inputs option_vocabulary fit_dra)
    add_test(NAME cli_${case}
             COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli/cli_test.sh ${case} $<TARGET_FILE:gpuadmit> ${CMAKE_SOURCE_DIR})
    set_tests_properties(cli_${case} PROPERTIES LABELS cli)
  endforeach()
endif()
