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

# Layers (tests/guard/check_layers.py): no include and no symbol use points up the stack, no two files depend on
# each other (by includes, or by the symbols their objects use of each other: nm of every library's objects), and
# sources cite the repository's own reference, not a document outside it.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(GPA_GUARD_OBJECTS)
foreach(target ${GPA_LAYERS})
  list(APPEND GPA_GUARD_OBJECTS $<TARGET_OBJECTS:gpa_${target}>)
endforeach()
foreach(target gpa_certs gpa_cluster gpa_webhook gpa_load gpa_cli gpuadmit)
  if(TARGET ${target})
    list(APPEND GPA_GUARD_OBJECTS $<TARGET_OBJECTS:${target}>)
  endif()
endforeach()
add_test(NAME guard_layers COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/guard/check_layers.py ${CMAKE_SOURCE_DIR}
                                   "${GPA_GUARD_OBJECTS}")
# The layers guard itself, on small trees it builds with the C compiler (tests/guard/test_check_layers.py).
add_test(NAME guard_layers_self COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/guard/test_check_layers.py ${CMAKE_C_COMPILER})
