# Guard rails that are tests: exported symbols (tests/guard/check_exports.sh).
set(GPA_GUARD_LIBS $<TARGET_FILE:gpa_rules>)
foreach(lib gpa_certs gpa_webhook gpa_cli)
  if(TARGET ${lib})
    list(APPEND GPA_GUARD_LIBS $<TARGET_FILE:${lib}>)
  endif()
endforeach()
add_test(NAME guard_exports COMMAND ${CMAKE_CURRENT_LIST_DIR}/guard/check_exports.sh ${GPA_GUARD_LIBS})
