# End-to-end tests of `gpuadmit serve` (tests/e2e/run_e2e.py): the real server on loopback, certificates from
# `gpuadmit certs`, a Go client that calls it as kube-apiserver does, python3-jsonpatch as a second patch
# implementation. One ctest per scenario; they need go (with the Debian json-patch sources) and python3-jsonpatch.
find_program(GPA_GO go)
find_program(GPA_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
# One ctest per scenario: e2e_<kind>_<test> runs <script> <Class>.<test>, alone on the machine (timing matters
# for reloads under load and shutdown grace; peak RSS and CPU use are measured on the server).
function(gpa_e2e_scenario kind script class t)
  add_test(NAME e2e_${kind}_${t}
           COMMAND ${GPA_PYTHON3} -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/tests/e2e/${script} ${class}.${t})
  set_tests_properties(e2e_${kind}_${t} PROPERTIES
    ENVIRONMENT "GPUADMIT=$<TARGET_FILE:gpuadmit>;E2E_WORK=${CMAKE_BINARY_DIR}/e2e/${kind}-${t}"
    TIMEOUT 180 LABELS e2e RUN_SERIAL TRUE)
endfunction()
if(TARGET gpuadmit AND GPA_GO AND GPA_PYTHON3)
  set(GPA_E2E_TESTS test_reviews_v1_and_v1beta1 test_dra_reviews test_bad_input test_unreadable_object_denied_with_code_400 test_cert_rotation_under_load test_config_reload
      test_inventory_directory test_raycluster_gets_the_gpu_count_ray_should_advertise
      test_raycluster_gpu_memory_from_inventory_card_memory
      test_unreadable_start_up_files test_sigterm_with_requests_in_flight
      test_sigterm_closes_idle_and_finishes_partial
      test_big_pod_answered_within_apiserver_timeout
      test_client_that_never_reads
      test_body_cap_and_http_edges test_mtls test_tls_versions_and_alpn)
  foreach(t ${GPA_E2E_TESTS})
    gpa_e2e_scenario(webhook run_e2e.py Webhook ${t})
  endforeach()
  # The server under attack (tests/e2e/run_attack.py): HTTP/2 only when asked, connection cap, byte budget, EMFILE,
  # framing, NUL in strings. Memory is judged by the server's peak RSS (VmHWM), never by durations.
  set(GPA_ATTACK_TESTS test_http2_only_when_asked test_http2_refused test_connection_cap_counts_handshakes_and_slow_clients
      test_many_tls_record_headers_bounded test_bodies_one_byte_short_bounded test_inflight_budget_closes_the_hog
      test_emfile_pauses_accepting test_framing test_nul_in_strings
      test_pipelined_answers_never_read_meet_the_stall_deadline test_large_rule_breaking_review_bounded
      test_large_rule_clean_reviews_bounded test_large_koordinator_pod_with_inventory_bounded
      test_burst_of_large_reviews_all_answered_go_client)
  find_program(GPA_PRLIMIT prlimit)
  foreach(t ${GPA_ATTACK_TESTS})
    if(NOT t STREQUAL "test_emfile_pauses_accepting" OR GPA_PRLIMIT)
      gpa_e2e_scenario(attack run_attack.py Attack ${t})
    endif()
  endforeach()
  # CPU under attack (tests/e2e/run_cpu.py, inputs from tests/e2e/heavy.py): heavy reviews bounded and a trivial
  # review answered meanwhile, within a bound far above normal.
  foreach(t test_heavy_reviews_are_bounded_and_say_so test_trivial_review_answered_while_four_clients_attack)
    gpa_e2e_scenario(cpu run_cpu.py Cpu ${t})
  endforeach()
endif()
