<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.10.2" name="terrain" tilewidth="32" tileheight="32" tilecount="8" columns="8">
 <image source="terrain.png" width="256" height="32"/>
 <tile id="0" type="grass"/>
 <tile id="1" type="road"/>
 <tile id="2" type="forest"/>
 <tile id="3" type="thicket"/>
 <tile id="4" type="mud"/>
 <tile id="5" type="water"/>
 <tile id="6" type="rock"/>
 <tile id="7" type="water">
  <properties>
   <property name="foot" type="float" value="2"/>
   <property name="horse" type="float" value="3"/>
  </properties>
 </tile>
</tileset>
