# lockstep_step(NAME)   top level: adds steps/NAME (or a student's copy of it)
# lockstep_add_step()   a step's CMakeLists.txt: builds that step's library
#
# A step is known by its directory name, NN-name. Its library is
# lockstep_stepNN, built from src/*.c with include/ public. Its components are
# the headers it has: task.h, event.h, sequencer.h. The tests and the
# benchmark are compiled once per step against that library (tests/).

macro(lockstep_step name)
  string(SUBSTRING "${name}" 0 2 _lockstep_nn)
  set(LOCKSTEP_STEP_DIR_${_lockstep_nn} "" CACHE PATH "Build this directory as step ${name} (a student's copy)")
  if(LOCKSTEP_STEP_DIR_${_lockstep_nn})
    get_filename_component(_lockstep_dir "${LOCKSTEP_STEP_DIR_${_lockstep_nn}}" ABSOLUTE)
    if(NOT EXISTS "${_lockstep_dir}/CMakeLists.txt")
      message(FATAL_ERROR "LOCKSTEP_STEP_DIR_${_lockstep_nn}=${_lockstep_dir} has no CMakeLists.txt: point it at a copy of steps/${name}")
    endif()
    # Loud, because every test of step ${_lockstep_nn} now runs against that copy.
    message(NOTICE "*** lockstep: step ${name} is built from ${_lockstep_dir}, not from steps/${name}\n"
                   "*** (back to the repository's step: cmake -B <build dir> -DLOCKSTEP_STEP_DIR_${_lockstep_nn}=)")
    add_subdirectory("${_lockstep_dir}" "steps/${name}")
  else()
    add_subdirectory("steps/${name}")
  endif()
endmacro()

function(lockstep_add_step)
  # The binary directory carries the step's name even when the sources are a copy.
  get_filename_component(name "${CMAKE_CURRENT_BINARY_DIR}" NAME)
  if(NOT name MATCHES "^([0-9][0-9])-[a-z0-9-]+$")
    message(FATAL_ERROR "lockstep_add_step: '${name}' is not a step directory name (NN-name)")
  endif()
  set(nn "${CMAKE_MATCH_1}")
  math(EXPR number "${nn}")

  file(GLOB sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/*.c")
  set(components "")
  foreach(c task event sequencer)
    if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/include/lockstep/${c}.h")
      list(APPEND components ${c})
    endif()
  endforeach()

  set(lib lockstep_step${nn})
  add_library(${lib} STATIC ${sources})
  target_include_directories(${lib} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include")
  target_link_libraries(${lib} PUBLIC lockstep_common)
  target_compile_definitions(${lib} PUBLIC LOCKSTEP_STEP=${number})
  lockstep_warnings(${lib})

  set_property(GLOBAL APPEND PROPERTY LOCKSTEP_STEPS ${nn})
  set_property(GLOBAL PROPERTY LOCKSTEP_STEP_${nn}_NAME "${name}")
  set_property(GLOBAL PROPERTY LOCKSTEP_STEP_${nn}_NUMBER "${number}")
  set_property(GLOBAL PROPERTY LOCKSTEP_STEP_${nn}_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set_property(GLOBAL PROPERTY LOCKSTEP_STEP_${nn}_SOURCES "${sources}")
  set_property(GLOBAL PROPERTY LOCKSTEP_STEP_${nn}_COMPONENTS "${components}")
endfunction()
