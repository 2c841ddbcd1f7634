"""Start signorini as a simulator (Gazebo replacement) for one of the packaged robots.

  ros2 launch signorini sim.launch.py                      # the quadruped
  ros2 launch signorini sim.launch.py robot:=arm7
  ros2 launch signorini sim.launch.py config:=/path/to/my.yaml

Its controller: controller.launch.py use_sim_time:=true, or both at once:
sim_and_controller.launch.py.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _node(context):
    share = get_package_share_directory("signorini")
    robot = LaunchConfiguration("robot").perform(context)
    config = LaunchConfiguration("config").perform(context) or os.path.join(share, "config", f"{robot}.yaml")
    use_sim_time = LaunchConfiguration("use_sim_time").perform(context).lower() == "true"
    return [
        Node(
            package="signorini",
            executable="signorini",
            name="signorini",
            output="screen",
            arguments=["node"],
            parameters=[{"config_file": config, "use_sim_time": use_sim_time}],
        )
    ]


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument("robot", default_value="quadruped", description="quadruped, arm7, cube or diff_drive"),
        DeclareLaunchArgument("config", default_value="", description="a configuration file (overrides robot)"),
        DeclareLaunchArgument("use_sim_time", default_value="false",
                              description="the simulator publishes /clock itself; true only for other clocks"),
        OpaqueFunction(function=_node),
    ])
