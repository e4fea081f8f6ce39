# The cluster verbs' reports end to end, against the fake API server that tests/cluster.cmake builds: `gpuadmit
# explain` on a real-shaped cluster (tests/e2e/run_explain.py) and `audit -o policyreport` checked against the
# policy-report CRDs' schemas (tests/e2e/run_policyreport.py, tests/data/policyreport/); both on a HAMi cluster
# (tests/e2e/run_hami.py). Labels "e2e;cluster".
if(TARGET gpuadmit AND TARGET fakeapi AND GPA_PYTHON3)
  foreach(t run_explain:Explain.test_json run_explain:Explain.test_text_and_exit_codes
            run_explain:Explain.test_control_characters_escaped run_explain:Explain.test_node_templates
            run_explain:Explain.test_pod_level_and_no_gpu_node run_explain:Explain.test_dra_claims
            run_hami:Hami.test_explain run_hami:Hami.test_explain_renamed_names run_hami:Hami.test_audit
            run_policyreport:PolicyReport.test_wgpolicyk8s
            run_policyreport:PolicyReport.test_openreports_and_warn
            run_policyreport:PolicyReport.test_checker_refuses_what_the_crd_refuses run_policyreport:PolicyReport.test_flags)
    string(REPLACE ":" ";" parts ${t})
    list(GET parts 0 script)
    list(GET parts 1 case)
    string(REPLACE "." "_" name ${case})
    add_test(NAME e2e_${name}
             COMMAND ${GPA_PYTHON3} -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/tests/e2e/${script}.py ${case})
    set_tests_properties(e2e_${name} PROPERTIES
      ENVIRONMENT "GPUADMIT=$<TARGET_FILE:gpuadmit>;GPA_FAKEAPI=${GPA_FAKEAPI};E2E_WORK=${CMAKE_BINARY_DIR}/e2e/${name}"
      TIMEOUT 120 LABELS "e2e;cluster")
  endforeach()
endif()
