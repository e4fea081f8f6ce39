# The live cluster end to end (tests/e2e/run_cluster.py): `serve --cluster-inventory`, `fit --cluster` and `audit`
# against the fake API server that tests/cluster.cmake builds. Labels "e2e;cluster".
if(TARGET gpuadmit AND TARGET fakeapi AND GPA_PYTHON3)
  foreach(t Live.test_readyz_waits_for_sync_and_events_change_the_verdict Live.test_serve_before_sync_is_silent
            Live.test_staleness_stops_denying Live.test_stale_then_current_again Live.test_relist_after_410
            Live.test_watched_pods_are_audited Live.test_devices_not_served
            Live.test_templates_admit_autoscaled_pools Live.test_dra_objects_known_from_the_cluster Live.test_dra_slices_from_the_cluster
            Live.test_dra_not_served_is_not_known Live.test_dra_forbidden_is_optional
            Live.test_dra_v1beta1_cluster
            Live.test_templates_reload_when_their_file_changes Commands.test_fit_cluster Commands.test_fit_cluster_templates
            Commands.test_audit Commands.test_audit_dra Commands.test_serve_flags
            Commands.test_audit_judges_as_created_now Commands.test_audit_escapes_names)
    string(REPLACE "." "_" name ${t})
    add_test(NAME e2e_cluster_${name}
             COMMAND ${GPA_PYTHON3} -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/tests/e2e/run_cluster.py ${t})
    set_tests_properties(e2e_cluster_${name} PROPERTIES
      ENVIRONMENT "GPUADMIT=$<TARGET_FILE:gpuadmit>;GPA_FAKEAPI=${GPA_FAKEAPI};E2E_WORK=${CMAKE_BINARY_DIR}/e2e/cluster_${name}"
      TIMEOUT 120 LABELS "e2e;cluster")
  endforeach()
endif()

# Tenants' Pods against the live inventory (tests/e2e/run_tenant_pods.py): 256 KiB annotations, unreadable ones.
if(TARGET gpuadmit AND TARGET fakeapi AND GPA_PYTHON3)
  foreach(t TenantPods.test_annotations_neither_inflate_nor_poison TenantPods.test_fit_cluster_reads_them_the_same
            FileInventory.test_poisoned_dump_serves_and_warns HamiDump.test_cluster_reads_as_the_file)
    string(REPLACE "." "_" name ${t})
    add_test(NAME e2e_cluster_${name}
             COMMAND ${GPA_PYTHON3} -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/tests/e2e/run_tenant_pods.py ${t})
    set_tests_properties(e2e_cluster_${name} PROPERTIES
      ENVIRONMENT "GPUADMIT=$<TARGET_FILE:gpuadmit>;GPA_FAKEAPI=${GPA_FAKEAPI};E2E_WORK=${CMAKE_BINARY_DIR}/e2e/cluster_${name}"
      TIMEOUT 300 LABELS "e2e;cluster")
  endforeach()
  # The cluster paths, also run under Valgrind by tests/valgrind/memcheck.py (label "memcheck").
  add_test(NAME e2e_cluster_ClusterPaths_test_serve_fit_audit
           COMMAND ${GPA_PYTHON3} -W ignore::ResourceWarning ${CMAKE_SOURCE_DIR}/tests/e2e/run_tenant_pods.py
                   ClusterPaths.test_serve_fit_audit)
  set_tests_properties(e2e_cluster_ClusterPaths_test_serve_fit_audit PROPERTIES
    ENVIRONMENT "GPUADMIT=$<TARGET_FILE:gpuadmit>;GPA_FAKEAPI=${GPA_FAKEAPI};E2E_WORK=${CMAKE_BINARY_DIR}/e2e/cluster_paths"
    TIMEOUT 1200 LABELS "e2e;cluster;memcheck")
endif()

# Also under Valgrind (tests/valgrind/memcheck.py runs the tests labelled memcheck, every gpuadmit they start
# wrapped): audit and fit --cluster, the cluster paths of the CLI, against the fake API server. Each took 35-220 s
# under Valgrind on the loaded 2-core machine (an audit asks the API server about every kind it reads), hence the
# timeout.
if(TARGET gpuadmit AND TARGET fakeapi AND GPA_PYTHON3)
  set_property(TEST e2e_cluster_Commands_test_fit_cluster e2e_cluster_Commands_test_audit
                    e2e_cluster_Commands_test_audit_judges_as_created_now e2e_cluster_Commands_test_audit_escapes_names
               APPEND PROPERTY LABELS memcheck)
  set_tests_properties(e2e_cluster_Commands_test_fit_cluster e2e_cluster_Commands_test_audit
                       e2e_cluster_Commands_test_audit_judges_as_created_now e2e_cluster_Commands_test_audit_escapes_names
                       PROPERTIES TIMEOUT 900)
endif()
