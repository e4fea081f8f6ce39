# End-to-end tests of `gpuadmit serve` (tests/e2e/run_e2e.py): the real server on loopback, certificates from
# `gpuadmit certs`, a Go client that calls it as kube-apiserver does, python3-jsonpatch as a second patch
# implementation. One ctest per scenario; they need go (with the Debian json-patch sources) and python3-jsonpatch.
find_program(GPA_GO go)
find_program(GPA_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TARGET gpuadmit AND GPA_GO AND GPA_PYTHON3)
  set(GPA_E2E_TESTS test_reviews_v1_and_v1beta1 test_bad_input test_unreadable_object_denied_with_code_400 test_cert_rotation_under_load test_config_reload
      test_inventory_directory
      test_unreadable_start_up_files test_sigterm_with_requests_in_flight
      test_sigterm_closes_idle_and_finishes_partial
      test_big_pod_answered_within_apiserver_timeout
      test_client_that_never_reads
      test_body_cap_and_http_edges test_mtls test_tls_versions_and_alpn)
  foreach(t ${GPA_E2E_TESTS})
    add_test(NAME e2e_webhook_${t}
             COMMAND ${GPA_PYTHON3} -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/tests/e2e/run_e2e.py Webhook.${t})
    set_tests_properties(e2e_webhook_${t} PROPERTIES
      ENVIRONMENT "GPUADMIT=$<TARGET_FILE:gpuadmit>;E2E_WORK=${CMAKE_BINARY_DIR}/e2e/${t}"
      TIMEOUT 180 LABELS e2e
      # Timing matters here (reloads under load, shutdown grace): give each scenario the machine to itself.
      RUN_SERIAL TRUE)
  endforeach()
endif()
