# The Helm chart (charts/gpuadmit), rendered without a helm binary by tests/chart (Go's text/template + sprig,
# GOPATH mode: Debian's golang-go, golang-github-masterminds-sprig-dev and golang-gopkg-yaml.v3-dev).
# When the toolchain or the libraries are missing the test reports itself skipped (exit 77), naming them.
find_program(GPA_GO go)
set(GPA_GOPATH /usr/share/gocode)
if(GPA_GO AND EXISTS ${GPA_GOPATH}/src/github.com/Masterminds/sprig AND EXISTS ${GPA_GOPATH}/src/gopkg.in/yaml.v3)
  set(GPA_CHART_ENV
      "GOPATH=${GPA_GOPATH}" "GO111MODULE=off" "GOFLAGS=" "GOCACHE=${CMAKE_BINARY_DIR}/go-cache")
  if(TARGET gpuadmit)
    list(APPEND GPA_CHART_ENV "GPUADMIT_BIN=$<TARGET_FILE:gpuadmit>")
  endif()
  add_test(NAME chart
           COMMAND ${CMAKE_COMMAND} -E env ${GPA_CHART_ENV} ${GPA_GO} test -count=1 -v .
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/chart)
else()
  add_test(NAME chart
           COMMAND sh -c "echo 'chart: skipped: install golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev'; exit 77")
endif()
set_tests_properties(chart PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
