# gld_flatc(<target-var> <schema.fbs>): compile a schema to a C++ header under
# ${GLD_GENERATED_DIR}/gldelegate/ at build time; generated code is never committed.
function(gld_flatc out_var schema)
  get_filename_component(name ${schema} NAME_WE)
  set(out ${GLD_GENERATED_DIR}/gldelegate/${name}_generated.h)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${FLATC} --cpp --scoped-enums
            -o ${GLD_GENERATED_DIR}/gldelegate ${schema}
    DEPENDS ${schema}
    COMMENT "flatc ${name}.fbs"
    VERBATIM)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
