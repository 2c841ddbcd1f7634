"""Start signorini as the inverse-dynamics controller (`mode: control`) of one of the
packaged robots, next to a real robot or to a simulator started on its own.

  ros2 launch signorini controller.launch.py                       # the quadruped
  ros2 launch signorini controller.launch.py robot:=arm7
  ros2 launch signorini controller.launch.py config:=/path/to/my_control.yaml
  ros2 launch signorini controller.launch.py use_sim_time:=true    # next to a simulator

The node is named signorini_controller, so that its private topics
(/signorini_controller/reference, ...) stay apart from a simulator's /signorini/...
The simulator and the controller together: sim_and_controller.launch.py.
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


def _node(context):
    robot = LaunchConfiguration("robot").perform(context)
    config = _config(context, "config", f"{robot}_control.yaml")
    use_sim_time = LaunchConfiguration("use_sim_time").perform(context).lower() == "true"
    return [
        Node(
            package="signorini",
            executable="signorini",
            name="signorini_controller",
            output="screen",
            arguments=["node"],
            parameters=[{"config_file": config, "use_sim_time": use_sim_time}],
        )
    ]


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument("robot", default_value="quadruped", description="quadruped or arm7"),
        DeclareLaunchArgument("config", default_value="",
                              description="a configuration file with mode: control (overrides robot)"),
        DeclareLaunchArgument("use_sim_time", default_value="false",
                              description="true next to a simulator (it publishes /clock), false next to a real robot"),
        OpaqueFunction(function=_node),
    ])
