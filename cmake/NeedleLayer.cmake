# needle_layer(NAME): the static library needle_NAME of one layer — every *.cc of the folder
# the calling CMakeLists.txt is in — exported as needle::NAME (the export set needleTargets is
# completed in the top-level CMakeLists.txt), its headers installed under include/needle/NAME/
# and included as "NAME/header.h" both in the tree and installed. The caller adds its links.
function(needle_layer name)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  file(GLOB headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
  add_library(needle_${name} ${sources})
  add_library(needle::${name} ALIAS needle_${name})
  set_target_properties(needle_${name} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(needle_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/needle>)
  install(TARGETS needle_${name} EXPORT needleTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/needle/${name})
endfunction()
