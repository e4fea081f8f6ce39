# The Helm chart (charts/gpuadmit), rendered and checked by tests/chart/test_chart.py with the real Helm (v4)
# and kubectl (v1.34), and its CEL matchConditions evaluated by a CEL interpreter on node. scripts/deps.sh installs
# the three into GPA_K8S_TOOLS_DIR; only that directory is searched, so another kubectl on PATH (a machine may
# have an older one) is never used. When they are missing the test reports itself skipped (exit 77).
set(GPA_K8S_TOOLS_DIR /usr/local/lib/gpuadmit/k8s-tools CACHE PATH "where scripts/deps.sh installs helm, kubectl and cel-js")
find_program(GPA_HELM helm PATHS ${GPA_K8S_TOOLS_DIR} NO_DEFAULT_PATH)
find_program(GPA_KUBECTL kubectl PATHS ${GPA_K8S_TOOLS_DIR} NO_DEFAULT_PATH)
find_program(GPA_NODE NAMES node nodejs)
find_package(Python3 COMPONENTS Interpreter)
set(GPA_CHART_ENV
    "HELM=${GPA_HELM}" "KUBECTL=${GPA_KUBECTL}" "NODE=${GPA_NODE}" "CEL_JS=${GPA_K8S_TOOLS_DIR}/cel-js"
    "CHART=${CMAKE_SOURCE_DIR}/charts/gpuadmit" "HELM_CACHE_HOME=${CMAKE_BINARY_DIR}/helm-cache"
    "HELM_CONFIG_HOME=${CMAKE_BINARY_DIR}/helm-config" "HELM_DATA_HOME=${CMAKE_BINARY_DIR}/helm-data")
if(TARGET gpuadmit)
  list(APPEND GPA_CHART_ENV "GPUADMIT_BIN=$<TARGET_FILE:gpuadmit>")
endif()
if(Python3_FOUND)
  add_test(NAME chart COMMAND ${CMAKE_COMMAND} -E env ${GPA_CHART_ENV} ${Python3_EXECUTABLE}
                              ${CMAKE_SOURCE_DIR}/tests/chart/test_chart.py)
else()
  add_test(NAME chart COMMAND sh -c "echo 'chart: skipped: python3 not installed'; exit 77")
endif()
set_tests_properties(chart PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS chart)

# Self-managed certificates (cluster/certsync.h): real `gpuadmit serve` replicas against a fake API server
# (tests/chart/fake_kube.py): first start, a race, rotation under load with no failed request, a hand-edited Secret.
# With helm installed the fake holds the webhook configurations the chart renders.
if(Python3_FOUND AND TARGET gpuadmit)
  add_test(NAME chart_certsync
           COMMAND ${CMAKE_COMMAND} -E env "GPUADMIT_BIN=$<TARGET_FILE:gpuadmit>" ${GPA_CHART_ENV} ${Python3_EXECUTABLE}
                   ${CMAKE_SOURCE_DIR}/tests/chart/test_certsync.py)
  set_tests_properties(chart_certsync PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS chart)
endif()
