# gld_embed_files(<out.cc> <namespace> files...): embeds text files (GLSL templates)
# into a C++ source as a name -> contents table, regenerated when a file changes.
function(gld_embed_files out_cc)
  set(files ${ARGN})
  add_custom_command(
    OUTPUT ${out_cc}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cc} "-DFILES=${files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFilesScript.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/EmbedFilesScript.cmake
    COMMENT "embedding ${CMAKE_CURRENT_SOURCE_DIR} templates"
    VERBATIM)
endfunction()
