# The image (Dockerfile), built by scripts/image.sh and started as the chart starts it: uid 65532, read-only root,
# no capabilities (tests/image/test_image.py). It builds gpuadmit inside a container and, without a registry,
# makes a Debian base with debootstrap from the Debian mirror: minutes, root and the mirror. So it is registered
# only with -DGPA_IMAGE_TEST=ON, which scripts/test.sh passes (once per CI run); run it by hand with
#   cmake -B build -DGPA_IMAGE_TEST=ON && ctest --test-dir build -L image --output-on-failure
# Skipped (77) when podman, buildah or debootstrap is missing (scripts/deps.sh installs them); in CI it fails.
option(GPA_IMAGE_TEST "register the image test (label image: builds and runs the container image)" OFF)
if(GPA_IMAGE_TEST AND TARGET gpuadmit)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  add_test(NAME image COMMAND ${CMAKE_COMMAND} -E env "GPUADMIT_BIN=$<TARGET_FILE:gpuadmit>" ${Python3_EXECUTABLE}
                              ${CMAKE_SOURCE_DIR}/tests/image/test_image.py)
  set_tests_properties(image PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800 LABELS image RUN_SERIAL TRUE)
endif()
