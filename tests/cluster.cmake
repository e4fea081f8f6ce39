# The Kubernetes API client (cluster/) against a fake API server (tests/fakeapi, Go's standard library, built in
# GOPATH mode like the other Go test helpers). The unit tests that need it (test_kube_client, test_reflector) find
# it through $GPA_FAKEAPI and report themselves skipped (exit 77) without a Go toolchain. Label "cluster":
#   ctest --test-dir build -L cluster
find_program(GPA_GO go)
set(GPA_CLUSTER_TESTS test_kubeconfig test_kube_client test_reflector)
if(GPA_GO)
  set(GPA_FAKEAPI ${CMAKE_BINARY_DIR}/gpa-fakeapi) # not "fakeapi": make would take the file for the target
  file(GLOB GPA_FAKEAPI_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fakeapi/*.go)
  add_custom_command(OUTPUT ${GPA_FAKEAPI}
    COMMAND ${CMAKE_COMMAND} -E env GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE=${CMAKE_BINARY_DIR}/go-cache
            ${GPA_GO} build -o ${GPA_FAKEAPI} .
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/fakeapi
    DEPENDS ${GPA_FAKEAPI_SRC}
    COMMENT "Building the fake Kubernetes API server (tests/fakeapi)")
  add_custom_target(fakeapi ALL DEPENDS ${GPA_FAKEAPI})
endif()
foreach(t ${GPA_CLUSTER_TESTS})
  if(TARGET ${t})
    set_tests_properties(${t} PROPERTIES LABELS "unit;cluster" SKIP_RETURN_CODE 77 TIMEOUT 300)
    if(TARGET fakeapi)
      add_dependencies(${t} fakeapi)
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "GPA_FAKEAPI=${GPA_FAKEAPI}")
    endif()
  endif()
endforeach()

# bench-cluster (bench/cluster.c): the API client against the fake holding 5,000 GPU nodes and 100,000 Pods: paged
# lists, a reflector's first sync, watch events per second and the reflector's CPU per event. Registered here, not
# in bench/, because it needs the fake. `cmake --build BUILD --target bench-cluster`. Figures only: not a ctest.
if(TARGET gpa_cluster AND TARGET fakeapi)
  add_executable(gpuadmit-bench-cluster ${CMAKE_SOURCE_DIR}/bench/cluster.c)
  target_link_libraries(gpuadmit-bench-cluster PRIVATE gpa_cluster)
  add_custom_target(bench-cluster COMMAND gpuadmit-bench-cluster ${GPA_FAKEAPI}
                    DEPENDS gpuadmit-bench-cluster fakeapi USES_TERMINAL COMMENT "API client benchmark")
endif()
