# Configure-time half of the layer check (scripts/check_layers.py checks the includes): a
# library under models/ links nothing defined under src/ above src/config (platform,
# runtime, report, testbench, import, sweep, cli), and src/common and src/config link
# nothing defined under models/. Called after every library folder is added.
function(npu_check_layers)
  set(lower_dirs ${PROJECT_SOURCE_DIR}/src/common ${PROJECT_SOURCE_DIR}/src/config)
  file(GLOB model_dirs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/models/*)
  foreach(dir ${lower_dirs} ${model_dirs})
    if(NOT IS_DIRECTORY ${dir} OR NOT EXISTS ${dir}/CMakeLists.txt)
      continue()
    endif()
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target ${targets})
      get_target_property(links ${target} LINK_LIBRARIES)
      get_target_property(interface_links ${target} INTERFACE_LINK_LIBRARIES)
      foreach(dep IN LISTS links interface_links)
        if(NOT TARGET ${dep})
          continue()
        endif()
        get_target_property(dep_dir ${dep} SOURCE_DIR)
        string(REPLACE "${PROJECT_SOURCE_DIR}/" "" dep_rel "${dep_dir}")
        string(REPLACE "${PROJECT_SOURCE_DIR}/" "" rel "${dir}")
        if(rel MATCHES "^models/" AND dep_rel MATCHES "^src/"
           AND NOT dep_rel MATCHES "^src/(common|config)$")
          message(FATAL_ERROR "layering: ${target} (${rel}) links ${dep} (${dep_rel}), a higher "
                              "layer; models link only src/common, src/config and models/")
        endif()
        if(rel MATCHES "^src/(common|config)$" AND dep_rel MATCHES "^models/")
          message(FATAL_ERROR "layering: ${target} (${rel}) links ${dep} (${dep_rel}), a higher "
                              "layer; src/common and src/config link nothing under models/")
        endif()
      endforeach()
    endforeach()
  endforeach()
endfunction()
