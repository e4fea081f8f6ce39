# The Kubernetes API client (cluster/) against a fake API server (tests/fakeapi, Go's standard library, built in
# GOPATH mode like the other Go test helpers). The unit tests that need it (test_kube_client, test_reflector) find
# it through $GPA_FAKEAPI and report themselves skipped (exit 77) without a Go toolchain. Label "cluster":
#   ctest --test-dir build -L cluster
find_program(GPA_GO go)
set(GPA_CLUSTER_TESTS test_kubeconfig test_kube_client test_reflector)
if(GPA_GO)
  set(GPA_FAKEAPI ${CMAKE_BINARY_DIR}/fakeapi)
  add_custom_command(OUTPUT ${GPA_FAKEAPI}
    COMMAND ${CMAKE_COMMAND} -E env GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE=${CMAKE_BINARY_DIR}/go-cache
            ${GPA_GO} build -o ${GPA_FAKEAPI} .
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/fakeapi
    DEPENDS ${CMAKE_SOURCE_DIR}/tests/fakeapi/main.go
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
