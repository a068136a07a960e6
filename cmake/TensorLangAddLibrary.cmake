# tensorlang_add_library(name SRCS... [DEPENDS tgtargets...] [LINK_LIBS libs...])
#
# Every project library links against Debian's single libMLIR.so (the `MLIR`
# target) rather than MLIR's static component libraries: the JIT and
# MlirOptMain pull libMLIR.so in anyway, and two copies of MLIR in one process
# break its TypeID-based registries. LLVM is Debian's libLLVM.so, which
# libMLIR.so itself uses.
#
# Libraries are installed and exported as TensorLang::<name>.
function(tensorlang_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PUBLIC MLIR LLVM ${ARG_LINK_LIBS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  # Debian's imported MLIR and LLVM targets carry no include directories.
  target_include_directories(${name} SYSTEM PUBLIC
    ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  install(TARGETS ${name} EXPORT TensorLangTargets
    ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
endfunction()

# tensorlang_add_tool(name SRCS... LINK_LIBS libs...): an installed tool that
# finds Debian's libMLIR.so when installed.
function(tensorlang_add_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS})
  set_target_properties(${name} PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
  install(TARGETS ${name} EXPORT TensorLangTargets RUNTIME DESTINATION bin)
endfunction()
