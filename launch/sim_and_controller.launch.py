"""Start signorini as the simulator of one of the packaged robots and as its
inverse-dynamics controller: two nodes by default, or one process in `mode: sim+control`.

  ros2 launch signorini sim_and_controller.launch.py                  # the quadruped
  ros2 launch signorini sim_and_controller.launch.py robot:=arm7
  ros2 launch signorini sim_and_controller.launch.py one_process:=true
  ros2 launch signorini sim_and_controller.launch.py sim_config:=/path/to/sim.yaml controller_config:=/path/to/control.yaml

Two nodes: `signorini` runs config/<robot>.yaml and publishes /clock; `signorini_controller`
runs config/<robot>_control.yaml on that clock. One process: `signorini` runs
config/<robot>_sim_control.yaml, the controller driving the simulator in memory.
Each alone: sim.launch.py, controller.launch.py.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _config(context, argument, file_name):
    """The file the `argument` names, else the packaged config/<file_name>."""
    explicit = LaunchConfiguration(argument).perform(context)
    return explicit or os.path.join(get_package_share_directory("signorini"), "config", file_name)


def _signorini(name, config, use_sim_time):
    return Node(
        package="signorini",
        executable="signorini",
        name=name,
        output="screen",
        arguments=["node"],
        parameters=[{"config_file": config, "use_sim_time": use_sim_time}],
    )


def _nodes(context):
    robot = LaunchConfiguration("robot").perform(context)
    if LaunchConfiguration("one_process").perform(context).lower() == "true":
        # The simulator's own clock drives the loop; nothing else publishes /clock.
        return [_signorini("signorini", _config(context, "sim_config", f"{robot}_sim_control.yaml"), False)]
    return [
        _signorini("signorini", _config(context, "sim_config", f"{robot}.yaml"), False),
        # The controller follows the simulator's /clock.
        _signorini("signorini_controller", _config(context, "controller_config", f"{robot}_control.yaml"), True),
    ]


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument("robot", default_value="quadruped", description="quadruped or arm7"),
        DeclareLaunchArgument("sim_config", default_value="",
                              description="the simulator's configuration file (overrides robot); "
                                          "with one_process:=true, a file with mode: sim+control"),
        DeclareLaunchArgument("controller_config", default_value="",
                              description="the controller's configuration file (overrides robot; "
                                          "unused with one_process:=true)"),
        DeclareLaunchArgument("one_process", default_value="false",
                              description="true: one node in mode sim+control (config/<robot>_sim_control.yaml)"),
        OpaqueFunction(function=_nodes),
    ])
