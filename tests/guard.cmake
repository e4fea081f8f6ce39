# Guard rails that are tests: exported symbols (tests/guard/check_exports.sh).
set(GPA_GUARD_LIBS)
foreach(layer ${GPA_LAYERS})
  list(APPEND GPA_GUARD_LIBS $<TARGET_FILE:gpa_${layer}>)
endforeach()
foreach(lib gpa_certs gpa_webhook gpa_load gpa_cli)
  if(TARGET ${lib})
    list(APPEND GPA_GUARD_LIBS $<TARGET_FILE:${lib}>)
  endif()
endforeach()
add_test(NAME guard_exports COMMAND ${CMAKE_CURRENT_LIST_DIR}/guard/check_exports.sh ${GPA_GUARD_LIBS})

# Layers (tests/guard/check_layers.py): no include points up the stack, no two files depend on each other,
# and sources cite the repository's own reference, not a document outside it.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME guard_layers COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/guard/check_layers.py ${CMAKE_SOURCE_DIR})
