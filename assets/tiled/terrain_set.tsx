<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.10.2" name="terrain_set" tilewidth="32" tileheight="32" tilecount="8" columns="8">
 <image source="terrain.png" width="256" height="32"/>
 <tile id="7">
  <properties>
   <property name="flyer" type="float" value="1"/>
   <property name="foot" type="float" value="2"/>
   <property name="horse" type="float" value="3"/>
  </properties>
 </tile>
 <wangsets>
  <wangset name="Ground" type="corner" tile="-1">
   <wangcolor name="Grass" color="#60a848" tile="0" probability="1"/>
   <wangcolor name="Road" color="#c4aa78" tile="1" probability="1"/>
   <wangcolor name="Forest" color="#286e32" tile="2" probability="1"/>
   <wangcolor name="Thicket" color="#1e4623" tile="3" probability="1"/>
   <wangcolor name="Mud" color="#785532" tile="4" probability="1"/>
   <wangcolor name="Water" color="#3c6ec8" tile="5" probability="1"/>
   <wangcolor name="Rock" color="#78787d" tile="6" probability="1"/>
   <wangtile tileid="0" wangid="0,1,0,1,0,1,0,1"/>
   <wangtile tileid="1" wangid="0,2,0,2,0,2,0,2"/>
   <wangtile tileid="2" wangid="0,3,0,3,0,3,0,3"/>
   <wangtile tileid="3" wangid="0,4,0,4,0,4,0,4"/>
   <wangtile tileid="4" wangid="0,5,0,5,0,5,0,5"/>
   <wangtile tileid="5" wangid="0,6,0,6,0,6,0,6"/>
   <wangtile tileid="6" wangid="0,7,0,7,0,7,0,7"/>
  </wangset>
 </wangsets>
</tileset>
